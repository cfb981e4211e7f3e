/**
 * "Send the email, then mark the row": the one shape of every email job whose domain row shows the
 * email's state (invoices, ticket replies, notifications, schedule emails; docs/platform.md, "Jobs").
 * The send happens outside any transaction; the row is marked `sent` (with the attempt count) in the
 * statement right after it, or, on a failure, `pending` (retried by the runner) or `failed` on the
 * last attempt or a permanent error, and the error is thrown on to the runner.
 */
import type { Deps } from '../../deps';
import { type JobContext, PermanentJobError } from './define';

export interface EmailOutcome {
  state: 'sent' | 'pending' | 'failed';
  /** The job's attempt (1 on the first run). */
  attempts: number;
  /** When it was sent; null on a failure. */
  sentAt: Date | null;
  /** The failure; null once sent. */
  error: unknown;
}

/** The text kept as an email's last error: the underlying cause when there is one, at most 500 characters. */
export function emailErrorText(err: unknown): string {
  const text =
    err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  return text.slice(0, 500);
}

/** Runs `send` (the email) and records its outcome with `mark`; a failure is thrown on after the mark. */
export async function sendEmailThenMark(
  deps: Pick<Deps, 'clock'>,
  ctx: Pick<JobContext, 'attempt' | 'lastAttempt'>,
  send: () => Promise<void>,
  mark: (outcome: EmailOutcome) => Promise<unknown>,
): Promise<void> {
  try {
    await send();
  } catch (err) {
    const giveUp = ctx.lastAttempt || err instanceof PermanentJobError;
    await mark({ state: giveUp ? 'failed' : 'pending', attempts: ctx.attempt, sentAt: null, error: err });
    throw err;
  }
  await mark({ state: 'sent', attempts: ctx.attempt, sentAt: deps.clock.now(), error: null });
}
