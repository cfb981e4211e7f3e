/** Payment schedule test helpers. */

import { runDueScheduleTimers } from '../../src/modules/schedules/schedules.jobs';
import { schedulePayerEmailJob } from '../../src/modules/schedules/schedules-emails.service';
import type { TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { newKey, type PaymentWorld } from '../payments/fixtures';

export interface Instalment {
  instalment_id: string;
  sequence: number;
  amount: string;
  due_date: string;
  issue_at: string;
  status: string;
  transaction_id: string | null;
  checkout_url: string | null;
  link_number: number;
  issue_error: string | null;
  paid_at: string | null;
  allowed_actions: string[];
}
export interface Schedule {
  schedule_id: string;
  status: string;
  total_amount: string;
  amount_paid: string;
  instalments: Instalment[];
  [k: string]: unknown;
}

export function postSchedule(
  ctx: TestContext,
  caller: TestCaller,
  body: Record<string, unknown>,
  key: string | null = newKey(),
) {
  return ctx.app.inject({
    method: 'POST',
    url: '/api/v1/payment-schedules',
    headers: { ...caller.headers, ...(key === null ? {} : { 'x-idempotency-key': key }) },
    payload: body,
  });
}

export async function createSchedule(ctx: TestContext, w: PaymentWorld, body: Record<string, unknown>) {
  const res = await postSchedule(ctx, w.caller, {
    project_id: w.projectId,
    user_id: w.userId,
    currency: 'EUR',
    ...body,
  });
  if (res.statusCode !== 201) throw new Error(`schedule create ${res.statusCode}: ${res.body}`);
  return res.json() as Schedule;
}

export async function getSchedule(ctx: TestContext, caller: TestCaller, id: string) {
  const res = await ctx.app.inject({ url: `/api/v1/payment-schedules/${id}`, headers: caller.headers });
  if (res.statusCode !== 200) throw new Error(`get schedule ${res.statusCode}: ${res.body}`);
  return res.json() as Schedule;
}

export function instalmentAction(
  ctx: TestContext,
  caller: TestCaller,
  s: Schedule,
  seq: number,
  verb: 'issue-now' | 'reissue' | 'cancel',
) {
  const i = s.instalments[seq - 1]!;
  return ctx.app.inject({
    method: 'POST',
    url: `/api/v1/payment-schedules/${s.schedule_id}/instalments/${i.instalment_id}/${verb}`,
    headers: caller.headers,
  });
}

export async function drainSchedules(ctx: TestContext): Promise<void> {
  // The schedules' due timers, then the payer emails they owe (jobs).
  for (let n = 0; n < 100; n++)
    if ((await runDueScheduleTimers(ctx.deps)) + (await runJobs(ctx, schedulePayerEmailJob)) === 0) return;
  throw new Error('schedules worker did not settle');
}

/** Moves the clock and signs the caller in again (tokens live 30 minutes). */
export async function advance(ctx: TestContext, w: PaymentWorld, ms: number): Promise<void> {
  ctx.clock.advance(ms);
  w.caller = await createTestClient(ctx, { clientId: w.caller.clientId });
}

/** Drives a link's transaction through the sandbox bank: pending -> processing -> `final`. */
export async function settle(ctx: TestContext, w: PaymentWorld, transactionId: string, final: string) {
  for (const code of ['awaiting_bank_authorization', final]) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/sandbox/transactions/${transactionId}/simulate`,
      headers: w.caller.headers,
      payload: { provider_status: code },
    });
    if (res.statusCode !== 200) throw new Error(`simulate ${code}: ${res.statusCode} ${res.body}`);
  }
}

export const DAY = 86_400_000;
