/** A job failure with a time for its retry (no imports: providers throw it without the jobs platform). */

/**
 * A failure whose cure has a time, e.g. a server's `Retry-After`: the job is retried no earlier than
 * `notBefore` (and no earlier than its usual backoff). Its last attempt still makes it dead.
 */
export class RetryNotBeforeError extends Error {
  readonly notBefore: Date;
  constructor(message: string, notBefore: Date) {
    super(message);
    this.name = 'RetryNotBeforeError';
    this.notBefore = notBefore;
  }
}
