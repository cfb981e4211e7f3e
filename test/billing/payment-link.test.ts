/**
 * Invoices collected online: with SVC_BILLING_COLLECTION_PROJECT_ID set, finalization creates a
 * payment link on the platform's own project (key invoice:<id>, origin invoice), the email carries it,
 * the payer's successful payment marks the invoice paid in the same transaction, a failure is recorded
 * and retried, and settling the invoice otherwise cancels the link.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityLogs, clients } from '../../src/db/schema/index';
import { invoiceEmailJob } from '../../src/modules/billing/invoice-email.service';
import { invoicePaymentLinkJob } from '../../src/modules/billing/invoice-payment-link.service';
import { createTestApp, type MemoryMailer, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { eventsOf, staffHeaders } from '../org/fixtures';
import { createPaymentWorld, type PaymentWorld, pickBank, simulate } from '../payments/fixtures';
import { renewStaff, renewToken } from '../tickets/fixtures';
import { api, createDraft, finalize } from './fixtures';

let base: TestContext;
let ctx: TestContext;
let call: ReturnType<typeof api>;
let platform: PaymentWorld;
let billed: TestCaller;
let staffLogin: Awaited<ReturnType<typeof staffHeaders>>;

beforeAll(async () => {
  base = await createTestApp();
  platform = await createPaymentWorld(base);
  ctx = await createTestApp({
    database: base.deps.database,
    env: { SVC_BILLING_COLLECTION_PROJECT_ID: platform.projectId, SVC_BILLING_INVOICE_PREFIX: 'COL' },
  });
  ctx.clock.set(base.clock.now());
  call = api(ctx);
  billed = await createTestClient(ctx);
  staffLogin = await staffHeaders(ctx);
  await call('PUT', '/billing/details', billed.headers, {
    company_name: 'Billed Co',
    address: { line1: '1 Main St', city: 'Dublin', country: 'IE' },
    billing_email: 'billing@billed.example',
  });
});
afterAll(async () => {
  await ctx.close();
  await base.close();
});

const staff = () => staffLogin.headers;
const setPlatformCallback = (url: string | null) =>
  ctx.db.update(clients).set({ callbackUrl: url }).where(eq(clients.id, platform.caller.clientId));

describe('invoice payment links', () => {
  it('creates the link at finalization on the collection project and marks the invoice paid on success', async () => {
    const inv = await finalize(ctx, staff(), (await createDraft(ctx, staff(), billed.clientId)).invoice_id);
    expect(inv.payment_link).toMatchObject({ state: 'created', attempts: 1, last_error: null });
    expect(inv.payment_url).toMatch(/^http:\/\/localhost:8000\/checkout\//);
    const txId = inv.transaction_id as string;
    // The payment belongs to the platform's client, with the invoice as its origin.
    const t = (await call('GET', `/transactions/${txId}`, platform.caller.headers)).json();
    expect(t).toMatchObject({
      origin: { type: 'invoice', id: inv.invoice_id },
      amount: '72.98',
      currency: 'EUR',
      status: 'pending',
    });
    // The billed client cannot see the platform's transaction.
    expect((await call('GET', `/transactions/${txId}`, billed.headers)).statusCode).toBe(404);
    // The email waited for the link and carries it.
    await runJobs(ctx, invoiceEmailJob);
    const mail = (ctx.mailer as MemoryMailer).lastTo('billing@billed.example')!;
    expect(mail.text).toContain(`Pay online: ${inv.payment_url}`);
    // The payer pays at the sandbox bank: the invoice is paid in the transaction that moves the payment.
    await pickBank(ctx, inv.payment_url as string);
    expect((await simulate(ctx, platform, txId, 'completed')).json().status).toBe('success');
    const paid = (await call('GET', `/billing/invoices/${inv.invoice_id}`, billed.headers)).json();
    expect(paid).toMatchObject({
      status: 'paid',
      amount_paid: '72.98',
      amount_due: '0.00',
      transaction_id: txId,
    });
    const statuses = (await eventsOf(ctx, billed.clientId, 'billing.invoice.status_changed'))
      .map((e) => e.data as { invoice_id: string; current_status: string })
      .filter((d) => d.invoice_id === inv.invoice_id)
      .map((d) => d.current_status);
    expect(statuses).toEqual(['open', 'paid']);
    const [entry] = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, inv.invoice_id), eq(activityLogs.action, 'invoice.paid')));
    expect(entry?.metadata).toMatchObject({ transaction_id: txId });
    expect(entry).toMatchObject({ actorType: 'system', actorAccountId: null, actorEmail: null });
  });

  it('pays through the sandbox simulation along the same path', async () => {
    const inv = await finalize(ctx, staff(), (await createDraft(ctx, staff(), billed.clientId)).invoice_id);
    await pickBank(ctx, inv.payment_url as string);
    const res = await call('POST', `/sandbox/billing/invoices/${inv.invoice_id}/simulate`, billed.headers, {
      action: 'pay',
    });
    expect(res.json()).toMatchObject({ status: 'paid', transaction_id: inv.transaction_id });
  });

  it('records a failed link, still sends the invoice, and retries with backoff', async () => {
    await setPlatformCallback(null);
    const inv = await finalize(ctx, staff(), (await createDraft(ctx, staff(), billed.clientId)).invoice_id);
    expect(inv).toMatchObject({
      status: 'open',
      payment_url: null,
      payment_link: { state: 'pending', attempts: 1, last_error: 'Callback URL is not set' },
      email: { state: 'pending' },
    });
    await setPlatformCallback('https://platform.example/return');
    expect(await runJobs(ctx, invoicePaymentLinkJob)).toBe(0); // backoff: not due yet
    ctx.clock.advance(61_000);
    expect(await runJobs(ctx, invoicePaymentLinkJob)).toBe(1);
    await renewToken(ctx, billed);
    await renewStaff(ctx, staffLogin);
    const after = (await call('GET', `/admin/billing/invoices/${inv.invoice_id}`, staff())).json();
    expect(after.payment_link).toMatchObject({ state: 'created', attempts: 2, last_error: null });
    expect(after.payment_url).toMatch(/\/checkout\//);
  });

  it('cancels the open link when the invoice is settled otherwise or voided', async () => {
    const a = await finalize(ctx, staff(), (await createDraft(ctx, staff(), billed.clientId)).invoice_id);
    await call('POST', `/admin/billing/invoices/${a.invoice_id}/void`, staff(), { reason: 'Duplicate' });
    const t = (await call('GET', `/transactions/${a.transaction_id}`, platform.caller.headers)).json();
    expect(t.status).toBe('canceled');
    const b = await finalize(ctx, staff(), (await createDraft(ctx, staff(), billed.clientId)).invoice_id);
    await call('POST', `/admin/billing/invoices/${b.invoice_id}/mark-paid`, staff(), { reference: 'wire' });
    expect(
      (await call('GET', `/transactions/${b.transaction_id}`, platform.caller.headers)).json().status,
    ).toBe('canceled');
  });
});
