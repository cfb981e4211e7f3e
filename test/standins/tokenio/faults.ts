/**
 * Failure modes a test (or the control endpoint) queues per operation: an error status (429 with a
 * Retry-After, 5xx), a slow answer, or a dropped connection. `afterEffect` does the work first and
 * then fails the answer: the caller cannot tell whether the operation happened.
 */

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string; afterEffect?: boolean }
  | { kind: 'delay'; ms: number }
  | { kind: 'reset'; afterEffect?: boolean };

/** Operation names of the stand-in's routes (the same names the control endpoint takes). */
export const OPERATIONS = [
  'payments.initiate',
  'payments.get',
  'payments.list',
  'banks.list',
  'webhook.set',
  'webhook.get',
  'subtpps.create',
  'subtpps.get',
  'subtpps.list',
  'vrp.consents.create',
  'vrp.consents.get',
  'vrp.consents.list',
  'vrp.consents.revoke',
  'refunds.initiate',
  'refunds.get',
  'refunds.list',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export class Faults {
  private readonly queue: { op: Operation | '*'; fault: Fault; left: number }[] = [];

  /** The next `times` calls of `op` ('*': any operation) meet `fault`. */
  add(op: Operation | '*', fault: Fault, times = 1): void {
    this.queue.push({ op, fault, left: times });
  }

  take(op: Operation): Fault | null {
    const i = this.queue.findIndex((q) => q.op === op || q.op === '*');
    if (i < 0) return null;
    const q = this.queue[i]!;
    q.left--;
    if (q.left <= 0) this.queue.splice(i, 1);
    return q.fault;
  }

  clear(): void {
    this.queue.length = 0;
  }
}
