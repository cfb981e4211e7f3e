/** Refund fixtures: a paid sandbox payment, refund requests, and the sandbox bank's settlement. */
import { expect } from 'vitest';
import { SandboxBank } from '../../src/providers/bank/simulator';
import { createWorkers } from '../../src/workers/index';
import type { TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { createPaylink, newKey, type PaymentWorld, pickBank, simulate } from '../payments/fixtures';

/** A payment walked to success at the sandbox bank (the payer picked a bank and approved). */
export async function paidPayment(ctx: TestContext, w: PaymentWorld, amount = '100.00') {
  const t = await createPaylink(ctx, w, { amount });
  await pickBank(ctx, t.checkout_url);
  const r = await simulate(ctx, w, t.transaction_id, 'completed');
  expect(r.statusCode, r.body).toBe(200);
  expect(r.json().status).toBe('success');
  return t.transaction_id;
}

export function postRefund(
  ctx: TestContext,
  caller: TestCaller,
  transactionId: string,
  payload: Record<string, unknown> = {},
  key: string | null = newKey(),
) {
  return ctx.app.inject({
    method: 'POST',
    url: `/api/v1/transactions/${transactionId}/refunds`,
    headers: { ...caller.headers, ...(key === null ? {} : { 'x-idempotency-key': key }) },
    payload,
  });
}

export async function readTransaction(ctx: TestContext, caller: TestCaller, id: string) {
  const r = await ctx.app.inject({ url: `/api/v1/transactions/${id}`, headers: caller.headers });
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
}

export async function readRefund(ctx: TestContext, caller: TestCaller, id: string) {
  const r = await ctx.app.inject({ url: `/api/v1/refunds/${id}`, headers: caller.headers });
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
}

export function sandboxBank(ctx: TestContext): SandboxBank {
  const bank = ctx.deps.providers.bank;
  if (!(bank instanceof SandboxBank)) throw new Error('the test app runs the sandbox bank');
  return bank;
}

/** One tick of a background worker of the app (the sandbox bank's settlement, the refund reconciliation). */
export function runWorker(ctx: TestContext, name: 'sandbox-bank-refunds' | 'refund-reconciliation') {
  const worker = createWorkers(ctx.deps).find((w) => w.name === name);
  if (!worker) throw new Error(`no worker ${name}`);
  return worker.runOnce();
}

/** Lets the sandbox bank's settlement time pass, settles (its worker), and runs the jobs the notifications owe. */
export async function settleRefunds(ctx: TestContext): Promise<number> {
  ctx.clock.advanceSeconds(ctx.config.sandboxRefundSettleSeconds + 1);
  const n = await runWorker(ctx, 'sandbox-bank-refunds');
  await runJobs(ctx);
  return n;
}
