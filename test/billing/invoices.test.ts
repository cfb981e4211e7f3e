/**
 * Billing invoices over the API: price lists, drafts from lines (exact NUMERIC money) and from usage,
 * drafts invisible to the client, finalization (number, immutable PDF read back by PDF.js, email with
 * the PDF, event, notifications), every row of the status table, refused actions, reissue, lists,
 * billing details, usage, the sandbox sample and simulations, cross-client 404s.
 */

import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityLogs, invoicePdfs, notifications } from '../../src/db/schema/index';
import { markOverdueInvoices } from '../../src/modules/billing/billing.jobs';
import { invoiceEmailJob } from '../../src/modules/billing/invoice-email.service';
import { createTestApp, type MemoryMailer, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { eventsOf, staffHeaders } from '../org/fixtures';
import {
  createPaylink,
  createPaymentWorld,
  type PaymentWorld,
  pickBank,
  simulate,
} from '../payments/fixtures';
import { renewStaff, renewToken } from '../tickets/fixtures';
import {
  api,
  createDraft,
  finalize,
  insertDecidedVerification,
  PRICES,
  pdfText,
  putPrices,
} from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let w: PaymentWorld;
let owner: TestCaller;
let ops: TestCaller;
let dev: TestCaller;
let other: TestCaller;
let staffLogin: Awaited<ReturnType<typeof staffHeaders>>;
let staff: Record<string, string>;
const DAY = 86_400_000;

beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      SVC_BILLING_INVOICE_PREFIX: 'TST',
      SVC_BILLING_DEFAULT_DUE_DAYS: '14',
      SVC_BILLING_PAYEE_NAME: 'Platform Ltd',
      SVC_BILLING_PAYEE_IBAN: 'GB33BUKB20201555555555',
      SVC_BILLING_PAYEE_BIC: 'BUKBGB22',
    },
  });
  call = api(ctx);
  w = await createPaymentWorld(ctx);
  owner = w.caller;
  ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
  dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
  other = await createTestClient(ctx);
  staffLogin = await staffHeaders(ctx);
  staff = staffLogin.headers;
});
afterAll(() => ctx.close());

async function advance(ms: number) {
  ctx.clock.advance(ms);
  for (const c of [owner, ops, dev, other]) await renewToken(ctx, c);
  await renewStaff(ctx, staffLogin);
}

const statusEvents = async (clientId: string, id: string) =>
  (await eventsOf(ctx, clientId, 'billing.invoice.status_changed'))
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d.invoice_id === id);

const action = (id: string, name: string, body?: unknown) =>
  call('POST', `/admin/billing/invoices/${id}/${name}`, staff, body);

describe('price lists and drafts', () => {
  it('stores a price list; from_usage needs one in the same currency', async () => {
    const c = await createTestClient(ctx);
    // Without a stored list a sandbox client is billed from the default (EUR); production: test/billing/default-prices.
    const usd = await call('POST', '/admin/billing/invoices', staff, {
      client_id: c.clientId,
      currency: 'USD',
      period_start: '2026-01-01',
      period_end: '2026-01-31',
      from_usage: true,
    });
    expect(usd.statusCode).toBe(422);
    expect(usd.json().detail[0].msg).toBe("The client's price list is in EUR");
    const saved = await putPrices(ctx, staff, c.clientId);
    expect(saved).toMatchObject({ client_id: c.clientId, currency: 'EUR', prices: PRICES });
    const bad = await call('PUT', `/admin/clients/${c.clientId}/billing-prices`, staff, {
      currency: 'EUR',
      prices: { ...PRICES, kyc_verification: '-1' },
    });
    expect(bad.statusCode).toBe(422);
    const gbp = await call('POST', '/admin/billing/invoices', staff, {
      client_id: c.clientId,
      currency: 'GBP',
      period_start: '2026-01-01',
      period_end: '2026-01-31',
      from_usage: true,
    });
    expect(gbp.statusCode).toBe(422);
    const unknown = await call('PUT', `/admin/clients/${w.projectId}/billing-prices`, staff, {
      currency: 'EUR',
      prices: PRICES,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('computes line amounts, tax per line and totals exactly (half-up to 2 decimals)', async () => {
    const d = await createDraft(ctx, staff, owner.clientId);
    expect(d).toMatchObject({
      status: 'draft',
      number: null,
      subtotal: '61.00',
      tax_total: '11.98',
      total: '72.98',
      amount_paid: '0.00',
      amount_due: '72.98',
      due_in_days: 14,
    });
    const lines = (d.lines as { amount: string; tax_amount: string; tax_rate: string }[]).map((l) => [
      l.amount,
      l.tax_rate,
      l.tax_amount,
    ]);
    expect(lines).toEqual([
      ['49.99', '20', '10.00'],
      ['1.01', '7.7', '0.08'],
      ['10.00', '19', '1.90'],
    ]);
    // No event for a draft.
    expect(await statusEvents(owner.clientId, d.invoice_id)).toEqual([]);
  });

  it('keeps drafts invisible to the client; edits and deletes drafts only', async () => {
    const d = await createDraft(ctx, staff, owner.clientId);
    expect((await call('GET', `/billing/invoices/${d.invoice_id}`, owner.headers)).json()).toEqual({
      detail: 'Invoice not found',
    });
    expect((await call('GET', `/billing/invoices/${d.invoice_id}/pdf`, owner.headers)).statusCode).toBe(404);
    const listed = (await call('GET', '/billing/invoices?page_size=200', owner.headers)).json();
    expect(listed.invoices.map((i: { invoice_id: string }) => i.invoice_id)).not.toContain(d.invoice_id);
    const patched = await call('PATCH', `/admin/billing/invoices/${d.invoice_id}`, staff, {
      lines: [{ description: 'Fee', category: 'platform_fee', quantity: 1, unit_amount: '100' }],
      tax_rate: '10',
      purchase_order_number: 'PO-9',
    });
    expect(patched.json()).toMatchObject({ subtotal: '100.00', tax_total: '10.00', total: '110.00' });
    const rerated = await call('PATCH', `/admin/billing/invoices/${d.invoice_id}`, staff, { tax_rate: '0' });
    expect(rerated.json()).toMatchObject({ total: '100.00', purchase_order_number: 'PO-9' });
    const badPeriod = await call('PATCH', `/admin/billing/invoices/${d.invoice_id}`, staff, {
      period_end: '2025-12-01',
    });
    expect(badPeriod.statusCode).toBe(422);
    expect((await call('DELETE', `/admin/billing/invoices/${d.invoice_id}`, staff)).statusCode).toBe(204);
    expect((await call('GET', `/admin/billing/invoices/${d.invoice_id}`, staff)).statusCode).toBe(404);
    const both = await call('POST', '/admin/billing/invoices', staff, {
      client_id: owner.clientId,
      currency: 'EUR',
      period_start: '2026-01-01',
      period_end: '2026-01-31',
    });
    expect(both.json().detail[0]).toMatchObject({
      loc: ['body', 'lines'],
      msg: 'Give either lines or from_usage: true',
    });
  });
});

describe('finalization', () => {
  it('numbers, renders the PDF once, emails it, announces open and notifies owner and operations', async () => {
    await call('PUT', '/billing/details', owner.headers, {
      company_name: 'Acme Trading GmbH',
      address: { line1: 'Hauptstraße 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      vat_number: 'DE123456789',
      billing_email: 'ap@acme.example',
      purchase_order_number: 'PO-2026-7',
    });
    const d = await createDraft(ctx, staff, owner.clientId);
    const inv = await finalize(ctx, staff, d.invoice_id);
    expect(inv).toMatchObject({
      status: 'open',
      number: 'TST-2026-000001',
      issue_date: '2026-01-15',
      due_date: '2026-01-29',
      purchase_order_number: 'PO-2026-7',
      billing_details: {
        company_name: 'Acme Trading GmbH',
        billing_email: 'ap@acme.example',
        vat_number: 'DE123456789',
      },
      payment_instructions: {
        payee_name: 'Platform Ltd',
        iban: 'GB33BUKB20201555555555',
        bic: 'BUKBGB22',
        reference: 'TST-2026-000001',
      },
      payment_url: null,
      email: { state: 'pending', recipient: 'ap@acme.example' },
    });
    // The PDF: valid, stored with its sha256, and its text carries the number and the total.
    const pdf = await call('GET', `/billing/invoices/${d.invoice_id}/pdf`, ops.headers);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(createHash('sha256').update(pdf.rawPayload).digest('hex')).toBe(inv.pdf_sha256);
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('TST-2026-000001');
    expect(text).toContain('EUR 72.98');
    expect(text).toContain('Hauptstraße 1');
    expect(text).toContain('SANDBOX');
    // Immutable: the database refuses to change or delete it.
    await expect(
      ctx.db.update(invoicePdfs).set({ sha256: 'x' }).where(eq(invoicePdfs.invoiceId, d.invoice_id)),
    ).rejects.toThrow();
    await expect(ctx.db.delete(invoicePdfs).where(eq(invoicePdfs.invoiceId, d.invoice_id))).rejects.toThrow();
    // The event and the notifications.
    const [ev] = await statusEvents(owner.clientId, d.invoice_id);
    expect(ev).toEqual({
      invoice_id: d.invoice_id,
      number: 'TST-2026-000001',
      previous_status: 'draft',
      current_status: 'open',
      total: '72.98',
      amount_due: '72.98',
      currency: 'EUR',
      due_date: '2026-01-29',
    });
    const notes = await ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.clientId, owner.clientId), eq(notifications.category, 'billing')));
    expect(notes.map((n) => n.accountId).sort()).toEqual([owner.accountId, ops.accountId].sort());
    // The email goes out through the worker, PDF attached.
    const mailer = ctx.mailer as MemoryMailer;
    expect(await runJobs(ctx, invoiceEmailJob)).toBe(1);
    const mail = mailer.lastTo('ap@acme.example')!;
    expect(mail.subject).toBe('Invoice TST-2026-000001: EUR 72.98 due 2026-01-29');
    expect(mail.attachments?.[0]).toMatchObject({
      filename: 'TST-2026-000001.pdf',
      contentType: 'application/pdf',
    });
    expect(createHash('sha256').update(mail.attachments![0]!.content).digest('hex')).toBe(inv.pdf_sha256);
    expect((await call('GET', `/admin/billing/invoices/${d.invoice_id}`, staff)).json().email.state).toBe(
      'sent',
    );
    // Downloads are in the activity log; the client sees the invoice.
    const downloads = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, d.invoice_id), eq(activityLogs.action, 'invoice.downloaded')));
    expect(downloads).toHaveLength(1);
    expect((await call('GET', `/billing/invoices/${d.invoice_id}`, ops.headers)).json()).toMatchObject({
      number: 'TST-2026-000001',
      status: 'open',
    });
    // Finalizing again is a refused action; the second invoice gets the next number.
    expect((await action(d.invoice_id, 'finalize')).json()).toEqual({
      detail: "Invoice in status 'open' does not allow this action",
    });
    const next = await finalize(ctx, staff, (await createDraft(ctx, staff, other.clientId)).invoice_id);
    expect(next.number).toBe('TST-2026-000002');
  });

  it('retries a failed invoice email and records the failure', async () => {
    const mailer = ctx.mailer as MemoryMailer;
    await runJobs(ctx, invoiceEmailJob); // earlier invoices' mail
    const inv = await finalize(ctx, staff, (await createDraft(ctx, staff, owner.clientId)).invoice_id);
    mailer.failNext = 1;
    await runJobs(ctx, invoiceEmailJob);
    const failed = (await call('GET', `/admin/billing/invoices/${inv.invoice_id}`, staff)).json();
    expect(failed.email).toMatchObject({ state: 'pending', attempts: 1, last_error: 'simulated failure' });
    expect(await runJobs(ctx, invoiceEmailJob)).toBe(0); // not due yet
    await advance(61_000);
    expect(await runJobs(ctx, invoiceEmailJob)).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/admin/billing/invoices/${inv.invoice_id}`, staff)).json().email.state).toBe(
      'sent',
    );
  });
});

describe('the status table, row by row', () => {
  async function openInvoice(clientId = owner.clientId) {
    return finalize(ctx, staff, (await createDraft(ctx, staff, clientId)).invoice_id);
  }

  it('open -> overdue when the due date passes unpaid (sweeper, warning notification)', async () => {
    const c = await createTestClient(ctx);
    const inv = await openInvoice(c.clientId);
    ctx.clock.set(new Date(`${inv.due_date}T23:59:00Z`));
    await advance(0);
    await markOverdueInvoices(ctx.deps);
    expect((await call('GET', `/admin/billing/invoices/${inv.invoice_id}`, staff)).json().status).toBe(
      'open',
    );
    await advance(2 * 60_000);
    await markOverdueInvoices(ctx.deps);
    const row = (await call('GET', `/admin/billing/invoices/${inv.invoice_id}`, staff)).json();
    expect(row.status).toBe('overdue');
    expect((await statusEvents(c.clientId, inv.invoice_id)).map((e) => e.current_status)).toEqual([
      'open',
      'overdue',
    ]);
    const warn = await ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.clientId, c.clientId), eq(notifications.severity, 'warning')));
    expect(warn).toHaveLength(1);
  });

  it('open, overdue and uncollectible -> paid by staff mark-paid', async () => {
    const a = await openInvoice();
    const paid = await action(a.invoice_id, 'mark-paid', { reference: 'BANK-REF-1' });
    expect(paid.json()).toMatchObject({
      status: 'paid',
      amount_paid: '72.98',
      amount_due: '0.00',
      payment_reference: 'BANK-REF-1',
    });
    const b = await openInvoice();
    await call('POST', `/sandbox/billing/invoices/${b.invoice_id}/simulate`, owner.headers, {
      action: 'overdue',
    });
    expect((await action(b.invoice_id, 'mark-paid', {})).json().status).toBe('paid');
    const c = await openInvoice();
    await action(c.invoice_id, 'mark-uncollectible');
    expect(
      (await action(c.invoice_id, 'mark-paid', { paid_at: '2026-03-01T00:00:00Z' })).json(),
    ).toMatchObject({
      status: 'paid',
      paid_at: '2026-03-01T00:00:00.000Z',
    });
    expect((await statusEvents(owner.clientId, c.invoice_id)).map((e) => e.current_status)).toEqual([
      'open',
      'uncollectible',
      'paid',
    ]);
    // Terminal.
    for (const name of ['mark-paid', 'mark-uncollectible', 'finalize', 'reissue'])
      expect((await action(a.invoice_id, name, name === 'mark-paid' ? {} : undefined)).json()).toEqual({
        detail: "Invoice in status 'paid' does not allow this action",
      });
    expect((await action(a.invoice_id, 'void', { reason: 'x' })).statusCode).toBe(400);
  });

  it('open and overdue -> uncollectible; open, overdue and uncollectible -> void; void reissues', async () => {
    const a = await openInvoice();
    expect((await action(a.invoice_id, 'mark-uncollectible')).json().status).toBe('uncollectible');
    expect((await action(a.invoice_id, 'mark-uncollectible')).statusCode).toBe(400);
    const b = await openInvoice();
    await call('POST', `/sandbox/billing/invoices/${b.invoice_id}/simulate`, owner.headers, {
      action: 'overdue',
    });
    expect((await action(b.invoice_id, 'mark-uncollectible')).json().status).toBe('uncollectible');
    const c = await openInvoice();
    const voided = (await action(c.invoice_id, 'void', { reason: 'Wrong VAT rate' })).json();
    expect(voided).toMatchObject({ status: 'void', void_reason: 'Wrong VAT rate' });
    expect(voided.voided_at).not.toBeNull();
    const d = await openInvoice();
    await call('POST', `/sandbox/billing/invoices/${d.invoice_id}/simulate`, owner.headers, {
      action: 'overdue',
    });
    expect((await action(d.invoice_id, 'void', { reason: 'dup' })).json().status).toBe('void');
    expect((await action(a.invoice_id, 'void', { reason: 'gave up' })).json().status).toBe('void');
    // The void invoice keeps its number and PDF; reissue makes a corrected draft.
    expect((await call('GET', `/billing/invoices/${c.invoice_id}/pdf`, owner.headers)).statusCode).toBe(200);
    const re = await action(c.invoice_id, 'reissue');
    expect(re.statusCode).toBe(201);
    expect(re.json()).toMatchObject({
      status: 'draft',
      number: null,
      replaces_invoice_id: c.invoice_id,
      total: '72.98',
    });
    expect((await action(b.invoice_id, 'reissue')).json()).toEqual({
      detail: "Invoice in status 'uncollectible' does not allow this action",
    });
    expect((await action(re.json().invoice_id, 'mark-paid', {})).json()).toEqual({
      detail: "Invoice in status 'draft' does not allow this action",
    });
    expect(
      (await call('PATCH', `/admin/billing/invoices/${c.invoice_id}`, staff, { tax_rate: '1' })).json(),
    ).toEqual({
      detail: "Invoice in status 'void' does not allow this action",
    });
    expect((await call('DELETE', `/admin/billing/invoices/${c.invoice_id}`, staff)).statusCode).toBe(400);
    const voidReason = await action(b.invoice_id, 'void', {});
    expect(voidReason.statusCode).toBe(422);
  });

  it('simulate answers the real action\u2019s 400 when the status does not allow it, and 404 across clients', async () => {
    const inv = await openInvoice();
    await action(inv.invoice_id, 'mark-paid', {});
    const pay = await call('POST', `/sandbox/billing/invoices/${inv.invoice_id}/simulate`, owner.headers, {
      action: 'pay',
    });
    expect(pay.json()).toEqual({ detail: "Invoice in status 'paid' does not allow this action" });
    const overdue = await call(
      'POST',
      `/sandbox/billing/invoices/${inv.invoice_id}/simulate`,
      owner.headers,
      {
        action: 'overdue',
      },
    );
    expect(overdue.statusCode).toBe(400);
    const foreign = await call(
      'POST',
      `/sandbox/billing/invoices/${inv.invoice_id}/simulate`,
      other.headers,
      {
        action: 'pay',
      },
    );
    expect(foreign.json()).toEqual({ detail: 'Invoice not found' });
    const open = await openInvoice();
    const paid = await call('POST', `/sandbox/billing/invoices/${open.invoice_id}/simulate`, owner.headers, {
      action: 'pay',
    });
    expect(paid.json()).toMatchObject({ status: 'paid', amount_due: '0.00' });
  });
});

describe('client reads', () => {
  it('lists newest first with status and date filters, 404s another client, refuses developers', async () => {
    const c = await createTestClient(ctx);
    const a = await finalize(ctx, staff, (await createDraft(ctx, staff, c.clientId)).invoice_id);
    ctx.clock.advance(1000);
    const b = await finalize(ctx, staff, (await createDraft(ctx, staff, c.clientId)).invoice_id);
    await action(a.invoice_id, 'mark-paid', {});
    const list = (q = '') => call('GET', `/billing/invoices${q}`, c.headers).then((r) => r.json());
    expect((await list()).invoices.map((i: { invoice_id: string }) => i.invoice_id)).toEqual([
      b.invoice_id,
      a.invoice_id,
    ]);
    expect((await list('?status=paid')).invoices.map((i: { invoice_id: string }) => i.invoice_id)).toEqual([
      a.invoice_id,
    ]);
    expect((await list('?page_size=1&page=2')).pagination).toEqual({
      total: 2,
      page: 2,
      page_size: 1,
      total_pages: 2,
    });
    const at = ctx.clock.now().toISOString();
    expect((await list(`?from=${encodeURIComponent(at)}`)).invoices).toHaveLength(1);
    expect((await list(`?to=${encodeURIComponent(at)}`)).invoices).toHaveLength(1);
    expect((await call('GET', '/billing/invoices?page_size=201', c.headers)).statusCode).toBe(422);
    expect((await call('GET', '/billing/invoices?status=draft', c.headers)).statusCode).toBe(422);
    // Year 0000 is valid RFC 3339 but not a PostgreSQL timestamp: 422 on from/to, not a 500.
    const yearZero = await call('GET', '/billing/invoices?from=0000-01-01T00:00:00Z', c.headers);
    expect(yearZero.statusCode).toBe(422);
    expect(yearZero.json().detail[0].loc).toEqual(['query', 'from']);
    for (const url of [`/billing/invoices/${a.invoice_id}`, `/billing/invoices/${a.invoice_id}/pdf`]) {
      const r = await call('GET', url, owner.headers);
      expect([r.statusCode, r.json()]).toEqual([404, { detail: 'Invoice not found' }]);
    }
    expect((await call('GET', '/billing/invoices', dev.headers)).statusCode).toBe(403);
    expect(
      (await call('PUT', '/billing/details', ops.headers, { company_name: 'x', billing_email: 'a@b.io' }))
        .statusCode,
    ).toBe(403);
    const admin = (
      await call('GET', `/admin/billing/invoices?client_id=${c.clientId}&status=open`, staff)
    ).json();
    expect(admin.invoices.map((i: { invoice_id: string }) => i.invoice_id)).toEqual([b.invoice_id]);
  });

  it('billing details default to the registration name and email until set', async () => {
    const c = await createTestClient(ctx);
    const d = (await call('GET', '/billing/details', c.headers)).json();
    expect(d).toMatchObject({ address: null, updated_at: null });
    expect(d.billing_email).toMatch(/@example.com$/);
    const bad = await call('PUT', '/billing/details', c.headers, {
      company_name: 'X',
      billing_email: 'nope',
    });
    expect(bad.statusCode).toBe(422);
  });

  it('estimates the current month from the price list: successful payments and decided verifications', async () => {
    const byDefault = (await call('GET', '/billing/usage', owner.headers)).json();
    expect(byDefault.lines[0]).toMatchObject({ category: 'platform_fee', unit_amount: '49.00' });
    await putPrices(ctx, staff, owner.clientId);
    // Two successful payments this month, one pending; three KYC and one KYB decided this month, one KYC last month.
    for (const status of ['completed', 'completed', null]) {
      const t = await createPaylink(ctx, w);
      if (!status) continue;
      await pickBank(ctx, t.checkout_url);
      expect((await simulate(ctx, w, t.transaction_id, status)).json().status).toBe('success');
    }
    const now = ctx.clock.now();
    for (const at of [now, now, now]) await insertDecidedVerification(ctx, owner.clientId, 'kyc', at);
    await insertDecidedVerification(ctx, owner.clientId, 'kyb', now);
    await insertDecidedVerification(ctx, owner.clientId, 'kyc', new Date(now.getTime() - 40 * DAY));
    const usage = (await call('GET', '/billing/usage', owner.headers)).json();
    const month = now.toISOString().slice(0, 7);
    expect(usage).toMatchObject({ period_start: `${month}-01`, currency: 'EUR' });
    const q = Object.fromEntries(
      usage.lines.map((l: { category: string; quantity: number; amount: string }) => [
        l.category,
        [l.quantity, l.amount],
      ]),
    );
    expect(q).toMatchObject({
      platform_fee: [1, '49.00'],
      transaction_fee: [2, '0.70'],
      kyc_verification: [3, '3.77'], // 3 × 1.255 = 3.765 -> 3.77
      kyb_verification: [1, '4.00'],
      wallet_screening: [0, '0.00'],
    });
    expect(usage.subtotal).toBe('57.47');
    // A draft from usage carries the same lines (quantity >= 1 only).
    const draft = await call('POST', '/admin/billing/invoices', staff, {
      client_id: owner.clientId,
      currency: 'EUR',
      period_start: usage.period_start,
      period_end: usage.period_end,
      from_usage: true,
      tax_rate: '20',
    });
    expect(draft.statusCode).toBe(201);
    expect(draft.json()).toMatchObject({ subtotal: '57.47', tax_total: '11.49' });
    expect(draft.json().lines.map((l: { category: string }) => l.category)).toEqual([
      'platform_fee',
      'transaction_fee',
      'kyc_verification',
      'kyb_verification',
    ]);
  });
});

describe('sandbox sample invoice', () => {
  it('creates a finalized, watermarked sample for the caller', async () => {
    const res = await call('POST', '/sandbox/billing/invoices', dev.headers, {});
    expect(res.statusCode).toBe(201);
    const inv = res.json();
    expect(inv).toMatchObject({
      status: 'open',
      currency: 'EUR',
      subtotal: '91.00',
      tax_total: '18.20',
      total: '109.20',
    });
    expect(inv.number).toMatch(/^TST-2026-\d{6}$/);
    const pdf = await call('GET', `/billing/invoices/${inv.invoice_id}/pdf`, owner.headers);
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('SANDBOX');
    expect(text).toContain(inv.number);
    expect(text).toContain('EUR 109.20');
    const custom = await call('POST', '/sandbox/billing/invoices', dev.headers, {
      lines: [{ description: 'Test', category: 'other', quantity: 2, unit_amount: '0.005' }],
    });
    expect(custom.json()).toMatchObject({ subtotal: '0.01', total: '0.01' });
  });

  it('answers 404 on a production deployment', async () => {
    const { PRODUCTION_ENV } = await import('../helpers/app');
    const prod = await createTestApp({ env: { ...PRODUCTION_ENV }, database: ctx.deps.database });
    try {
      prod.clock.set(ctx.clock.now());
      const c = await createTestClient(prod, { productionAccess: true });
      const r = await prod.app.inject({
        method: 'POST',
        url: '/api/v1/sandbox/billing/invoices',
        headers: c.headers,
        payload: {},
      });
      expect(r.statusCode).toBe(404);
    } finally {
      await prod.close();
    }
  });

  it('counts nothing twice: one sample per call, numbers stay gapless', async () => {
    const res = await ctx.db.execute(
      sql`select number from invoices where number is not null order by number`,
    );
    const numbers = (res as unknown as { rows: { number: string }[] }).rows.map((r) =>
      Number(r.number.slice(-6)),
    );
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  });
});
