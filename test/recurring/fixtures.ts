/** Recurring payment test helpers. */
import { runRecurringWorker } from '../../src/modules/recurring/recurring.worker';
import type { TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { newKey, type PaymentWorld } from '../payments/fixtures';

export interface Attempt {
  attempt_number: number;
  transaction_id: string | null;
  trigger: string;
  retry_of_attempt: number | null;
  outcome: string;
  failure_reason: string | null;
}
export interface Run {
  run_id: string;
  sequence: number;
  kind: string;
  scheduled_for: string;
  amount: string;
  status: string;
  transaction_id: string | null;
  failure_reason: string | null;
  will_retry: boolean;
  next_retry_at: string | null;
  attempts: Attempt[];
  replayed?: boolean;
}
export interface Recurring {
  definition_id: string;
  status: string;
  status_reason: string | null;
  authorization_url: string | null;
  next_run_at: string | null;
  runs_count: number;
  mandate: { status: string; bank_name: string | null; authorized_at: string | null; valid_from: string };
  [k: string]: unknown;
}

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export function api(
  ctx: TestContext,
  w: PaymentWorld,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return ctx.app.inject({
    method,
    url: `/api/v1${path}`,
    headers: { ...w.caller.headers, ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

export function recurringBody(w: PaymentWorld, over: Record<string, unknown> = {}) {
  return {
    project_id: w.projectId,
    user_id: w.userId,
    currency: 'EUR',
    amount: '10.00',
    description: 'Gym membership',
    reference: 'GYM-2026',
    schedule: { interval: 'month', interval_count: 1, start_date: '2026-01-15' },
    mandate: {
      max_amount_per_payment: '50.00',
      periodic_limit: { amount: '100.00', period: 'month', alignment: 'calendar' },
    },
    ...over,
  };
}

export async function createRecurring(ctx: TestContext, w: PaymentWorld, over: Record<string, unknown> = {}) {
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const body = recurringBody(w, {
    schedule: { interval: 'month', interval_count: 1, start_date: today },
    ...over,
  });
  const res = await api(ctx, w, 'POST', '/recurring-payments', body, { 'x-idempotency-key': newKey() });
  if (res.statusCode !== 201) throw new Error(`create ${res.statusCode}: ${res.body}`);
  return res.json() as Recurring;
}

export async function simulate(ctx: TestContext, w: PaymentWorld, id: string, action: string) {
  const res = await api(ctx, w, 'POST', `/sandbox/recurring-payments/${id}/simulate`, { action });
  if (res.statusCode !== 200) throw new Error(`simulate ${action} ${res.statusCode}: ${res.body}`);
  return res.json() as Recurring;
}

export async function getRecurring(ctx: TestContext, w: PaymentWorld, id: string) {
  return (await api(ctx, w, 'GET', `/recurring-payments/${id}`)).json() as Recurring;
}

export async function runsOf(ctx: TestContext, w: PaymentWorld, id: string) {
  const res = await api(ctx, w, 'GET', `/recurring-payments/${id}/runs?page_size=200`);
  if (res.statusCode !== 200) throw new Error(`runs ${res.statusCode}: ${res.body}`);
  return (res.json() as { runs: Run[] }).runs.sort((a, b) => a.sequence - b.sequence);
}

export async function drainRecurring(ctx: TestContext): Promise<void> {
  for (let n = 0; n < 100; n++) if ((await runRecurringWorker(ctx.deps)) === 0) return;
  throw new Error('recurring worker did not settle');
}

/** Lets the sandbox bank settle (SVC_SANDBOX_BANK_SETTLE_SECONDS) and the worker catch up. */
export async function settleBank(ctx: TestContext, w: PaymentWorld): Promise<void> {
  await drainRecurring(ctx);
  await advance(ctx, w, 3000);
  await drainRecurring(ctx);
}

export async function advance(ctx: TestContext, w: PaymentWorld, ms: number): Promise<void> {
  ctx.clock.advance(ms);
  w.caller = await createTestClient(ctx, { clientId: w.caller.clientId });
}

export async function createActive(ctx: TestContext, w: PaymentWorld, over: Record<string, unknown> = {}) {
  const d = await createRecurring(ctx, w, over);
  return simulate(ctx, w, d.definition_id, 'authorize');
}
