/**
 * The service in production mode with SVC_BANK_PROVIDER=tokenio against the stand-in: bank choice
 * initiates the Token.io payment, the return page / hints / refresh / reconciliation read it, the
 * opco becomes a Sub-TPP through the registration job and Token.io's review, and the failure modes
 * at the service's edge (Token.io down at bank choice, unknown outcomes, an open breaker).
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clients,
  notifications,
  opcos,
  recurringPayments,
  transactionStatusEvents,
  transactions,
} from '../../../src/db/schema/index';
import { registerSubTppJob } from '../../../src/modules/opcos/opco-network.service';
import { approveOpco } from '../../../src/modules/opcos/opco-review.service';
import { createNetworkReconcileWorker as createTokenioWorker } from '../../../src/modules/payments/network-reconcile.worker';
import { PaymentMessages } from '../../../src/modules/payments/payments.messages';
import {
  expireDuePayments,
  LINK_EXPIRED_WHILE_PROCESSING,
} from '../../../src/modules/payments/payments.service';
import { RecurringMessages } from '../../../src/modules/recurring/recurring.messages';
import { jobRegistry, runDueJobs } from '../../../src/platform/jobs/index';
import { TOKENIO_WEBHOOK_PATH, tokenioSettings } from '../../../src/providers/bank/tokenio/config';
import type { TestContext } from '../../helpers/app';
import { createTestClient } from '../../helpers/clients';
import { capturedLogLines } from '../../helpers/log-capture';
import { companyBody, eventsOf } from '../../org/fixtures';
import {
  createPaylink,
  createPaymentWorld,
  type PaymentWorld,
  paylinkBody,
  pickBank,
  tokenOf,
} from '../../payments/fixtures';
import { type RunningStandin, startTokenioStandin } from '../../standins/tokenio/server';
import { startTokenioApp, WEBHOOK_SECRET } from './fixtures';

let standin: RunningStandin;
let ctx: TestContext;
let w: PaymentWorld;
let base: string;
const AFTER = 60;

beforeAll(async () => {
  standin = await startTokenioStandin();
  ctx = await startTokenioApp(standin, {
    SVC_TOKENIO_RECONCILE_AFTER_SECONDS: String(AFTER),
    SVC_TOKENIO_RECONCILE_INTERVAL_SECONDS: '30',
    SVC_TOKENIO_SUBTPP_POLL_SECONDS: '120',
    SVC_TOKENIO_REVIEW_INTERVAL_SECONDS: '600',
    SVC_TOKENIO_REVIEW_DAYS: '2',
  });
  base = ctx.config.publicUrl;
  w = await createPaymentWorld(ctx, { productionAccess: true });
  // The world's opco is a Sub-TPP that Token.io activated.
  const s = standin.control.store.createSubTpp({
    name: 'Acme Payments',
    domain: 'acme.example.com',
    merchant: { iban: 'GB82WEST12345698765432' },
  });
  standin.control.decideSubTpp(s.id, 'ACTIVATED');
  await ctx.db.update(opcos).set({ subTppId: s.id }).where(eq(opcos.id, w.opcoId));
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  await standin?.close();
});
afterEach(() => standin.control.reset());

const worker = () => createTokenioWorker(ctx.deps)!;
const tx = async (id: string) =>
  (await ctx.db.select().from(transactions).where(eq(transactions.id, id)))[0]!;
const statusChanges = async (id: string) =>
  (await eventsOf(ctx, w.caller.clientId, 'payment.status_changed'))
    .filter((e) => e.data.transaction_id === id)
    .map((e) => `${e.data.previous_payment_status}->${e.data.current_payment_status}`);
const hint = (body: unknown, secret = WEBHOOK_SECRET) =>
  ctx.app.inject({ method: 'POST', url: `${TOKENIO_WEBHOOK_PATH}/${secret}`, payload: body as object });
const paid = async (amount = '20.00') => {
  const t = await createPaylink(ctx, w, { amount, currency: 'GBP' });
  const bankUrl = await pickBank(ctx, t.checkout_url, 'ob-modelo');
  // The notifications of the initiation are answered (a hint in flight holds the row the worker would skip).
  await standin.control.notifier.idle();
  return { t, bankUrl, transferId: (await tx(t.transaction_id)).transferId! };
};

describe('notification URLs', () => {
  it('the URL registered with Token.io and the generic provider URL both take a hint; a wrong secret is 404 on each', async () => {
    const generic = '/api/v1/providers/bank/tokenio/notifications';
    for (const url of [`${TOKENIO_WEBHOOK_PATH}/${WEBHOOK_SECRET}`, `${generic}/${WEBHOOK_SECRET}`]) {
      const { t, transferId } = await paid();
      standin.control.notifier.dropNext(100);
      standin.control.store.decidePayment(transferId, 'approve');
      const res = await ctx.app.inject({ method: 'POST', url, payload: { payment: { id: transferId } } });
      expect(res.statusCode, url).toBe(200);
      expect(res.json()).toEqual({ received: true, applied: true });
      expect((await tx(t.transaction_id)).status).toBe('success');
    }
    for (const url of [`${TOKENIO_WEBHOOK_PATH}/not-the-secret`, `${generic}/not-the-secret`, generic])
      expect((await ctx.app.inject({ method: 'POST', url, payload: {} })).statusCode, url).toBe(404);
  });
});

describe('payments', () => {
  it('registers our webhook URL; a link makes no call; bank choice initiates on behalf of the Sub-TPP', async () => {
    await worker().runOnce();
    expect(standin.control.notifier.config).toEqual({
      type: [
        'PAYMENT_STATUS_CHANGED',
        'VRP_STATUS_CHANGED',
        'VRP_CONSENT_STATUS_CHANGED',
        'REFUND_STATUS_CHANGED',
      ],
      url: `${base}${TOKENIO_WEBHOOK_PATH}/${WEBHOOK_SECRET}`,
    });
    const before = standin.control.store.payments.size;
    const t = await createPaylink(ctx, w, { amount: '20.00', currency: 'GBP' });
    expect(t.ref_id).toMatch(/^[a-z0-9]{18}$/);
    expect(standin.control.store.payments.size).toBe(before);
    const bankUrl = await pickBank(ctx, t.checkout_url, 'ob-modelo');
    const row = await tx(t.transaction_id);
    expect(bankUrl).toBe(`${standin.url}/bank/payments/${encodeURIComponent(row.transferId!)}`);
    expect(row).toMatchObject({
      status: 'processing',
      providerStatus: 'awaiting_bank_authorization',
      reconciliationState: 'none',
    });
    const p = standin.control.store.payments.get(row.transferId!)!;
    expect(p.initiation).toMatchObject({
      refId: t.ref_id,
      callbackUrl: `${base}/checkout/${tokenOf(t.checkout_url)}/return`,
    });
    // The payer is back before any notification: the return page reads Token.io.
    standin.control.notifier.hold();
    standin.control.store.decidePayment(row.transferId!, 'approve');
    const back = await ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}/return` });
    expect(back.statusCode).toBe(303);
    expect((await tx(t.transaction_id)).status).toBe('success');
    expect(await statusChanges(t.transaction_id)).toEqual(['pending->processing', 'processing->success']);
  });

  it('the payer’s IP goes as token-customer-ip-address and a pseudonymous risk.psuId, stable per payer, with risk.paymentContextCode (brief H2 points 2, 3)', async () => {
    const pick = async () => {
      const t = await createPaylink(ctx, w, { amount: '21.00', currency: 'GBP' });
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/checkout/${tokenOf(t.checkout_url)}/bank`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'bank_id=ob-modelo',
        remoteAddress: '203.0.113.7',
      });
      expect(res.statusCode).toBe(303);
      const row = await tx(t.transaction_id);
      return { row, p: standin.control.store.payments.get(row.transferId!)! };
    };
    const one = await pick();
    expect(standin.control.store.customerIp.get(one.p.id)).toBe('203.0.113.7');
    const risk = one.p.initiation.risk as { psuId: string; paymentContextCode: string };
    expect(risk.paymentContextCode).toBe('BILLING_GOODS_AND_SERVICES_IN_ADVANCE');
    expect(risk.psuId).toMatch(/^psu-[0-9a-f]{40}$/);
    // Nothing of ours in clear: neither the payer record nor the client.
    const payer = one.row.userId ?? one.row.businessCustomerId!;
    expect(risk.psuId).not.toContain(payer.replaceAll('-', '').slice(0, 8));
    // The same payer of the same merchant: the same id.
    const two = await pick();
    expect((two.p.initiation.risk as { psuId: string }).psuId).toBe(risk.psuId);
  });

  it('a notification is only a hint: a forged status changes nothing; reversed and doubled deliveries end the same', async () => {
    const { t, transferId } = await paid();
    expect((await hint({}, 'not-the-secret')).statusCode).toBe(404);
    const forged = await hint({
      eventType: 'PAYMENT_STATUS_CHANGED',
      payment: { id: transferId, status: 'INITIATION_COMPLETED' },
    });
    expect(forged.json()).toEqual({ received: true, applied: false });
    expect((await tx(t.transaction_id)).status).toBe('processing');
    expect((await hint({ payment: { id: 'pm2:unknown:x' } })).json()).toEqual({
      received: true,
      applied: false,
    });

    standin.control.notifier.hold();
    standin.control.notifier.setDuplicate(true);
    standin.control.store.decidePayment(transferId, 'approve');
    await standin.control.notifier.release({ reverse: true });
    expect((await tx(t.transaction_id)).status).toBe('success');
    expect(await statusChanges(t.transaction_id)).toEqual(['pending->processing', 'processing->success']);
    // Late: after the end, a hint changes nothing.
    expect((await hint({ payment: { id: transferId } })).json()).toEqual({ received: true, applied: false });
  });

  it('a notification never sent: the worker reads the payment once its last news is older than the bound, with backoff', async () => {
    const { t, transferId } = await paid();
    standin.control.notifier.dropNext(100);
    await worker().runOnce();
    expect((await tx(t.transaction_id)).networkChecks).toBe(0); // not due before the bound
    ctx.clock.advanceSeconds(AFTER + 1);
    await worker().runOnce();
    let row = await tx(t.transaction_id);
    expect([row.status, row.networkChecks]).toEqual(['processing', 1]); // Token.io: still at the bank
    expect(row.networkCheckAt!.getTime() - ctx.clock.now().getTime()).toBe(30_000);
    standin.control.store.decidePayment(transferId, 'reject');
    ctx.clock.advanceSeconds(31);
    await worker().runOnce();
    row = await tx(t.transaction_id);
    expect([row.status, row.providerStatus]).toEqual(['failed', 'rejected']);
  });

  it('refresh-status reads Token.io; an open breaker answers 503 at once', async () => {
    const { t, transferId } = await paid();
    standin.control.notifier.dropNext(100);
    standin.control.store.decidePayment(transferId, 'insufficient_funds');
    const r = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/transactions/${t.transaction_id}/refresh-status`,
      headers: w.caller.headers,
    });
    expect(r.json()).toMatchObject({ status: 'failed', provider_status: 'rejected_insufficient_funds' });

    const other = await paid();
    standin.control.fail('payments.get', { kind: 'status', status: 503 }, 1000);
    for (let i = 0; i < 3; i++) {
      ctx.clock.advanceSeconds(60);
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/transactions/${other.t.transaction_id}/refresh-status`,
        headers: w.caller.headers,
      });
      expect([res.statusCode, res.json()]).toEqual([
        503,
        { detail: PaymentMessages.paymentNetworkUnavailable },
      ]);
    }
    const metrics = await ctx.deps.metrics.metrics();
    expect(metrics).toMatch(/svc_upstream_breaker_state\{upstream="tokenio"\} 2/);
    expect(metrics).toMatch(
      /svc_upstream_errors_total\{upstream="tokenio",operation="payments.get",kind="circuit_open"\} [1-9]/,
    );
    standin.control.clearFaults();
    await new Promise((r) => setTimeout(r, 1100)); // the breaker's cooldown (1 s in these tests)
    // The half-open probe succeeds: closed again.
    ctx.clock.advanceSeconds(60);
    const after = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/transactions/${other.t.transaction_id}/refresh-status`,
      headers: w.caller.headers,
    });
    expect(after.statusCode).toBe(200);
    expect(await ctx.deps.metrics.metrics()).toMatch(/svc_upstream_breaker_state\{upstream="tokenio"\} 0/);
  });

  it('Token.io failing at bank choice: a clean 503 page, nothing half-written; then a new session; an unknown outcome is adopted', async () => {
    const t = await createPaylink(ctx, w, { amount: '7.00', currency: 'GBP' });
    const token = tokenOf(t.checkout_url);
    standin.control.fail('payments.initiate', { kind: 'status', status: 500 });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/checkout/${token}/bank`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'bank_id=ob-modelo',
    });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain(PaymentMessages.paymentNetworkUnavailable);
    expect(await tx(t.transaction_id)).toMatchObject({
      status: 'pending',
      transferId: null,
      reconciliationState: 'none',
    });
    expect(standin.control.store.listPayments({ refIds: [t.ref_id] })).toHaveLength(0);

    await pickBank(ctx, t.checkout_url, 'ob-modelo');
    const row = await tx(t.transaction_id);
    expect(row.status).toBe('processing');
    expect(row.refId).not.toBe(t.ref_id);
    const kinds = (
      await ctx.db
        .select()
        .from(transactionStatusEvents)
        .where(eq(transactionStatusEvents.transactionId, row.id))
    ).map((e) => e.kind);
    expect(kinds).toContain('session_restarted');

    const u = await createPaylink(ctx, w, { amount: '8.00', currency: 'GBP' });
    standin.control.fail('payments.initiate', { kind: 'status', status: 502, afterEffect: true });
    await pickBank(ctx, u.checkout_url, 'ob-modelo');
    const adopted = await tx(u.transaction_id);
    expect(adopted).toMatchObject({ status: 'processing', refId: u.ref_id });
    expect(standin.control.store.listPayments({ refIds: [u.ref_id] })).toHaveLength(1);
  });

  it('no bank list yet and Token.io down: the checkout page is a 503, not an error', async () => {
    const t = await createPaylink(ctx, w, { amount: '6.00', currency: 'GBP' });
    // A node that never fetched the list (the adapter's cache is per process).
    (ctx.deps.providers.bank as unknown as { banks: null }).banks = null;
    standin.control.fail('banks.list', { kind: 'status', status: 503 }, 3);
    const page = await ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}` });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain(PaymentMessages.paymentNetworkUnavailable);
    expect((await ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}` })).statusCode).toBe(200);
  });

  it('a bank Token.io refuses: the checkout asks for another bank (422), nothing written', async () => {
    const t = await createPaylink(ctx, w, { amount: '9.00', currency: 'EUR' });
    const choose = (bankId: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/checkout/${tokenOf(t.checkout_url)}/bank`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `bank_id=${bankId}`,
      });
    // A Faster Payments bank is not even offered for a EUR payment.
    const notOffered = await choose('ob-modelo');
    expect(notOffered.statusCode).toBe(422);
    expect(notOffered.body).toContain('Choose your bank to continue.');
    // An offered bank that Token.io refuses (400 at initiation).
    standin.control.fail('payments.initiate', { kind: 'status', status: 400 });
    const res = await choose('ngp-rheinbank');
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('This bank cannot take this payment right now');
    expect((await tx(t.transaction_id)).transferId).toBeNull();
    // Token.io's tokenTraceId of the refusal is in our log and on the timeline (brief H2 point 4).
    const timeline = await ctx.db
      .select()
      .from(transactionStatusEvents)
      .where(eq(transactionStatusEvents.transactionId, t.transaction_id));
    const refusal = timeline.find((e) => e.reason?.includes('refused the payment at bank ngp-rheinbank'));
    const trace = /\(network trace (trace[a-z0-9]+)\)$/.exec(refusal?.reason ?? '')?.[1];
    expect(trace).toBeDefined();
    expect(capturedLogLines().some((l) => l.includes(`"tokenTraceId":"${trace}"`))).toBe(true);
  });

  it('a payment the bank rejects: Token.io’s errorInfo.tokenTraceId is on the timeline’s failed entry (brief H2 point 4)', async () => {
    const t = await createPaylink(ctx, w, { amount: '8.00', currency: 'GBP' });
    await pickBank(ctx, t.checkout_url, 'ob-modelo');
    const row = await tx(t.transaction_id);
    standin.control.notifier.hold();
    standin.control.store.decidePayment(row.transferId!, 'reject');
    const trace = standin.control.store.payments.get(row.transferId!)!.errorInfo!.tokenTraceId!;
    await ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}/return` });
    expect((await tx(t.transaction_id)).status).toBe('failed');
    const failed = (
      await ctx.db
        .select()
        .from(transactionStatusEvents)
        .where(eq(transactionStatusEvents.transactionId, t.transaction_id))
    ).find((e) => e.kind === 'transition' && e.toStatus === 'failed');
    expect(failed?.reason).toContain(`(network trace ${trace})`);
  });
});

describe('consent under Token.io’s licence (issue 36 point 8)', () => {
  it('the checkout shows the amount, the beneficiary account name, the reference and the sentence with the Terms link; pispConsentAccepted is true', async () => {
    const t = await createPaylink(ctx, w, { amount: '21.50', currency: 'GBP' });
    const page = await ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}` });
    const consent = page.body.slice(page.body.indexOf('<section class="consent"'));
    expect(consent).toContain('£21.50');
    expect(consent).toContain(t.ref_id);
    const [opco] = await ctx.db.select().from(opcos).where(eq(opcos.id, w.opcoId));
    const beneficiary = opco!.legalEntityName ?? opco!.name;
    expect(consent).toContain(`<dt>Paid to</dt><dd>${beneficiary}</dd>`);
    expect(consent).toContain(
      `You can use Token.io's payment service to make a secure payment directly from your bank account to the benefit of ${beneficiary}.`.replace(
        "'",
        '&#39;',
      ),
    );
    expect(consent).toContain('href="https://terms.example/tokenio"');
    // Token.io's prescribed words before the Terms link (user-consent-collection), not "this service".
    expect(consent).toContain(
      "The terms governing your use of Token.io's service can be found at <a".replace("'", '&#39;'),
    );
    expect(consent).not.toContain('this service');
    await pickBank(ctx, t.checkout_url, 'ob-modelo');
    const row = await tx(t.transaction_id);
    expect(standin.control.store.consentAccepted.get(row.transferId!)).toBe(true);
  });
});

describe('recurring payments by bank in production (issue 36 point 9)', () => {
  it('off by default: creating one answers 403 saying why (commercial VRP must be agreed first), nothing written', async () => {
    await ctx.db
      .update(clients)
      .set({ features: { recurring_payments: true } })
      .where(eq(clients.id, w.caller.clientId));
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/recurring-payments',
      headers: { ...w.caller.headers, 'x-idempotency-key': `k-${Date.now()}` },
      payload: {
        project_id: w.projectId,
        user_id: w.userId,
        currency: 'GBP',
        amount: '15.00',
        mandate: {
          max_amount_per_payment: '50.00',
          periodic_limit: { amount: '100.00', period: 'month', alignment: 'calendar' },
        },
      },
    });
    expect([res.statusCode, res.json()]).toEqual([403, { detail: RecurringMessages.bankMandatesDisabled }]);
    expect(
      await ctx.db.select().from(recurringPayments).where(eq(recurringPayments.clientId, w.caller.clientId)),
    ).toEqual([]);
  });
});

describe('opcos as Token.io Sub-TPPs', () => {
  const api = (method: string, url: string, payload?: unknown) =>
    ctx.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: w.caller.headers,
      payload: payload as object,
    });
  const runJobs = () => runDueJobs(ctx.deps, jobRegistry([registerSubTppJob as never]));

  it('staff approval registers the Sub-TPP (a job after the commit); Token.io’s review activates it', async () => {
    const o = (await api('POST', '/opcos', companyBody({ name: 'Token Opco One' }))).json();
    expect((await api('POST', `/opcos/${o.opco_id}/submit`)).json().status).toBe('pending_superadmin_review');
    const approved = await approveOpco(ctx.deps, o.opco_id, 'KYB checked');
    expect(approved).toMatchObject({ status: 'awaiting_approval', sub_tpp_id: null });
    await runJobs();
    const [row] = await ctx.db.select().from(opcos).where(eq(opcos.id, o.opco_id));
    const registered = standin.control.store.subTpps.get(row!.subTppRegistrationId!)!;
    expect(registered).toMatchObject({ name: 'Token Opco One', status: 'AWAITING_APPROVAL' });
    await worker().runOnce();
    expect((await api('GET', `/opcos/${o.opco_id}`)).json()).toMatchObject({
      status: 'awaiting_approval',
      sub_tpp_id: null,
    });
    await expect(approveOpco(ctx.deps, o.opco_id)).rejects.toMatchObject({ statusCode: 409 });
    standin.control.decideSubTpp(registered.id, 'ACTIVATED');
    ctx.clock.advanceSeconds(121);
    await worker().runOnce();
    expect((await api('GET', `/opcos/${o.opco_id}`)).json()).toMatchObject({
      status: 'activated',
      sub_tpp_id: registered.id,
    });
    const moves = (await eventsOf(ctx, w.caller.clientId, 'opco.status_changed'))
      .filter((e) => e.data.opco_id === o.opco_id)
      .map((e) => `${e.data.previous_opco_status}->${e.data.current_opco_status}:${e.data.sub_tpp_id}`);
    expect(moves).toEqual([
      'draft->pending_superadmin_review:null',
      'pending_superadmin_review->awaiting_approval:null',
      `awaiting_approval->activated:${registered.id}`,
    ]);
  });

  it('Token.io down during registration: the job retries; a rejection by Token.io rejects the opco with the reason', async () => {
    const o = (await api('POST', '/opcos', companyBody({ name: 'Token Opco Two' }))).json();
    await api('POST', `/opcos/${o.opco_id}/submit`);
    await approveOpco(ctx.deps, o.opco_id);
    standin.control.fail('subtpps.create', { kind: 'status', status: 503 });
    await runJobs();
    expect(
      (await ctx.db.select().from(opcos).where(eq(opcos.id, o.opco_id)))[0]!.subTppRegistrationId,
    ).toBeNull();
    ctx.clock.advanceSeconds(10);
    await runJobs();
    const [row] = await ctx.db.select().from(opcos).where(eq(opcos.id, o.opco_id));
    expect(row!.subTppRegistrationId).toBeTruthy();
    standin.control.decideSubTpp(
      row!.subTppRegistrationId!,
      'REJECTED',
      'Company registration could not be verified',
    );
    await worker().runOnce();
    expect((await api('GET', `/opcos/${o.opco_id}`)).json()).toMatchObject({
      status: 'rejected',
      sub_tpp_id: null,
      status_reason: 'The payment network rejected the Sub-TPP: Company registration could not be verified',
    });
  });
});

describe('money that may have moved (issue 36, point 7)', () => {
  const notes = async (refId: string) =>
    (await ctx.db.select().from(notifications).where(eq(notifications.clientId, w.caller.clientId)))
      .filter((n) => n.title.includes(refId))
      .map((n) => n.severity);
  const lastStatusEvent = async (id: string) =>
    (await eventsOf(ctx, w.caller.clientId, 'payment.status_changed'))
      .filter((e) => e.data.transaction_id === id)
      .at(-1)!.data;

  it('no final status: expired and held for manual review (record, event, list filter, notification); a late completion is raised without moving the status', async () => {
    const { t, transferId } = await paid('31.00');
    standin.control.store.decidePayment(transferId, 'no_final_status');
    await standin.control.notifier.idle();
    expect(await tx(t.transaction_id)).toMatchObject({
      status: 'expired',
      providerStatus: 'no_final_status',
      reconciliationState: 'manual_review_required',
    });
    expect(await lastStatusEvent(t.transaction_id)).toMatchObject({
      previous_payment_status: 'processing',
      current_payment_status: 'expired',
      reconciliation_state: 'manual_review_required',
      status_detail: 'no_final_status',
    });
    const listed = await ctx.app.inject({
      url: '/api/v1/transactions?reconciliation_state=manual_review_required&page_size=200',
      headers: w.caller.headers,
    });
    const ids = listed.json().transactions.map((x: { transaction_id: string }) => x.transaction_id);
    expect(ids).toContain(t.transaction_id);
    const normal = await ctx.app.inject({
      url: '/api/v1/transactions?reconciliation_state=none&page_size=200',
      headers: w.caller.headers,
    });
    expect(normal.json().transactions.map((x: { transaction_id: string }) => x.transaction_id)).not.toContain(
      t.transaction_id,
    );
    expect(await notes(t.ref_id)).toEqual(['critical']);

    // The bank reports the outcome late; Token.io's notification is lost: the slow reads find it.
    standin.control.notifier.dropNext(100);
    standin.control.reportLate(transferId, 'INITIATION_COMPLETED');
    await worker().runOnce();
    expect((await tx(t.transaction_id)).providerStatus).toBe('no_final_status'); // not due yet
    ctx.clock.advanceSeconds(tokenioSettings(ctx.config)!.review.intervalSeconds + 1);
    await worker().runOnce();
    const row = await tx(t.transaction_id);
    expect(row).toMatchObject({
      status: 'expired',
      providerStatus: 'completed',
      reconciliationState: 'manual_review_required',
    });
    expect(await statusChanges(t.transaction_id)).toEqual([
      'pending->processing',
      'processing->expired',
      'expired->expired',
    ]);
    expect(await lastStatusEvent(t.transaction_id)).toMatchObject({
      reconciliation_state: 'manual_review_required',
      status_detail: 'completed',
    });
    const timeline = (
      await ctx.app.inject({
        url: `/api/v1/transactions/${t.transaction_id}/status-events`,
        headers: w.caller.headers,
      })
    ).json().status_events;
    expect(timeline.at(-1)).toMatchObject({
      previous_status: 'expired',
      status: 'expired',
      provider_status: 'completed',
    });
    expect(await notes(t.ref_id)).toEqual(['critical', 'critical']);
    // Final news ends the reads: nothing more is written.
    ctx.clock.advanceSeconds(tokenioSettings(ctx.config)!.review.intervalSeconds + 1);
    await worker().runOnce();
    expect(await statusChanges(t.transaction_id)).toHaveLength(3);
  });

  it('expired after the bank accepted the payment is held too, and a hint carries a late completion at once', async () => {
    const held = await paid('32.00');
    // The bank accepts it and we hear so; Token.io then stops polling the bank.
    standin.control.store.decidePayment(held.transferId, 'approve_only');
    await standin.control.notifier.idle();
    expect((await tx(held.t.transaction_id)).providerStatus).toBe('processing');
    standin.control.setPaymentStatus(held.transferId, 'INITIATION_EXPIRED');
    await standin.control.notifier.idle();
    expect(await tx(held.t.transaction_id)).toMatchObject({
      status: 'expired',
      providerStatus: 'expired',
      reconciliationState: 'manual_review_required',
    });
    standin.control.reportLate(held.transferId, 'INITIATION_COMPLETED');
    await standin.control.notifier.idle();
    expect((await tx(held.t.transaction_id)).providerStatus).toBe('completed');
  });

  it('our own link lifetime ending while Token.io still processes the payment: held for review and read slowly, not silently expired (brief H2 point 7)', async () => {
    const startedAt = ctx.clock.now();
    const held = await paid('34.00');
    standin.control.store.decidePayment(held.transferId, 'approve_only');
    await standin.control.notifier.idle();
    expect((await tx(held.t.transaction_id)).providerStatus).toBe('processing');
    await ctx.db
      .update(transactions)
      .set({ expiresAt: new Date(ctx.clock.now().getTime() - 1000) })
      .where(eq(transactions.id, held.t.transaction_id));
    await expireDuePayments(ctx.deps);
    expect(await tx(held.t.transaction_id)).toMatchObject({
      status: 'expired',
      providerStatus: 'no_final_status',
      reconciliationState: 'manual_review_required',
      statusReason: LINK_EXPIRED_WHILE_PROCESSING,
    });
    expect(await lastStatusEvent(held.t.transaction_id)).toMatchObject({
      previous_payment_status: 'processing',
      current_payment_status: 'expired',
      reconciliation_state: 'manual_review_required',
    });
    expect(await notes(held.t.ref_id)).toEqual(['critical']);
    // Still processing at Token.io: the slow reads record nothing; the late completion is raised.
    ctx.clock.advanceSeconds(tokenioSettings(ctx.config)!.review.intervalSeconds + 1);
    await worker().runOnce();
    expect((await tx(held.t.transaction_id)).providerStatus).toBe('no_final_status');
    standin.control.notifier.dropNext(100);
    standin.control.setPaymentStatus(held.transferId, 'INITIATION_COMPLETED');
    ctx.clock.advanceSeconds(tokenioSettings(ctx.config)!.review.intervalSeconds + 1);
    await worker().runOnce();
    expect(await tx(held.t.transaction_id)).toMatchObject({
      status: 'expired',
      providerStatus: 'completed',
      reconciliationState: 'manual_review_required',
    });
    expect(await notes(held.t.ref_id)).toEqual(['critical', 'critical']);
    // Back to where the test clock was: the caller's access token stays valid for the next tests.
    ctx.clock.set(startedAt);
  });

  it('expired while the payer was at the bank is held too (the payer may have approved and closed the browser); a link that expired before any bank was chosen is not', async () => {
    const atBank = await paid('33.00');
    expect((await tx(atBank.t.transaction_id)).providerStatus).toBe('awaiting_bank_authorization');
    standin.control.store.decidePayment(atBank.transferId, 'expire');
    await standin.control.notifier.idle();
    expect(await tx(atBank.t.transaction_id)).toMatchObject({
      status: 'expired',
      providerStatus: 'expired',
      reconciliationState: 'manual_review_required',
    });
    expect(await notes(atBank.t.ref_id)).toEqual(['critical']);
    // The payer's page: the money may have moved, so never "ask for a new link".
    const page = await ctx.app.inject({ url: atBank.t.checkout_url.replace(base, '') });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('We are confirming this payment with your bank');
    expect(page.body).toContain('Do not pay again');
    expect(page.body).not.toContain('Ask the merchant for a new one');

    // No bank chosen: no Token.io payment exists, the link simply expires.
    const link = await createPaylink(ctx, w, { amount: '33.50', currency: 'GBP' });
    await ctx.db
      .update(transactions)
      .set({ expiresAt: new Date(ctx.clock.now().getTime() - 1000) })
      .where(eq(transactions.id, link.transaction_id));
    await ctx.app.inject({ url: link.checkout_url.replace(base, '') });
    const row = await tx(link.transaction_id);
    expect(row.transferId).toBeNull();
    expect(row.reconciliationState).toBe('none');
    expect(await notes(link.ref_id)).toEqual([]);
  });

  it('canceled after the payer was sent to the bank: Token.io cannot cancel, so the payment is still read and a late completion is raised (status stays canceled)', async () => {
    const start = ctx.clock.now();
    const cancel = (id: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/api/v1/checkout/intent/${id}/cancel`,
        headers: w.caller.headers,
      });
    const read = await paid('35.00');
    const hinted = await paid('36.00');
    const failed = await paid('37.00');
    for (const p of [read, hinted, failed]) {
      expect((await cancel(p.t.transaction_id)).statusCode).toBe(200);
      expect(await tx(p.t.transaction_id)).toMatchObject({ status: 'canceled', providerStatus: 'canceled' });
    }

    // The payer approves at the bank anyway; Token.io's notification is lost: the slow reads find it.
    standin.control.notifier.dropNext(100);
    standin.control.setPaymentStatus(read.transferId, 'INITIATION_COMPLETED');
    ctx.clock.advanceSeconds(tokenioSettings(ctx.config)!.review.intervalSeconds + 1);
    await worker().runOnce();
    expect(await tx(read.t.transaction_id)).toMatchObject({
      status: 'canceled',
      providerStatus: 'completed',
      reconciliationState: 'manual_review_required',
    });
    expect(await statusChanges(read.t.transaction_id)).toEqual([
      'pending->processing',
      'processing->canceled',
      'canceled->canceled',
    ]);
    expect(await lastStatusEvent(read.t.transaction_id)).toMatchObject({
      reconciliation_state: 'manual_review_required',
      status_detail: 'completed',
    });
    expect(await notes(read.t.ref_id)).toEqual(['critical']);

    // Token.io's notification arrives: the completion is raised at once.
    standin.control.reset();
    standin.control.setPaymentStatus(hinted.transferId, 'INITIATION_COMPLETED');
    await standin.control.notifier.idle();
    expect(await tx(hinted.t.transaction_id)).toMatchObject({
      status: 'canceled',
      providerStatus: 'completed',
      reconciliationState: 'manual_review_required',
    });
    expect(await notes(hinted.t.ref_id)).toEqual(['critical']);

    // A final failure at Token.io is recorded on the timeline and ends the reads; nothing is raised.
    standin.control.setPaymentStatus(failed.transferId, 'INITIATION_REJECTED');
    await standin.control.notifier.idle();
    expect(await tx(failed.t.transaction_id)).toMatchObject({
      status: 'canceled',
      providerStatus: 'rejected',
      reconciliationState: 'none',
    });
    expect(await notes(failed.t.ref_id)).toEqual([]);
    expect(await statusChanges(failed.t.transaction_id)).toEqual([
      'pending->processing',
      'processing->canceled',
    ]);
    ctx.clock.set(start);
  });

  // Last: it moves the clock past the callers' tokens.
  it('reads stop after the configured number of days', async () => {
    const { t, transferId } = await paid('34.00');
    standin.control.store.decidePayment(transferId, 'no_final_status');
    await standin.control.notifier.idle();
    standin.control.notifier.dropNext(100);
    standin.control.reportLate(transferId, 'INITIATION_COMPLETED');
    const ended = (await tx(t.transaction_id)).completedAt!;
    ctx.clock.set(new Date(ended.getTime() + (tokenioSettings(ctx.config)!.review.days * 86400 + 60) * 1000));
    await worker().runOnce();
    expect((await tx(t.transaction_id)).providerStatus).toBe('no_final_status');
  });
});

describe('a Sub-TPP that Token.io deactivates later (brief H2 point 5)', () => {
  it('the daily re-read deactivates the opco with Token.io’s reason, tells the merchant, and new payment links are refused saying why', async () => {
    // The clock moved on in earlier tests: a fresh access token for the merchant.
    w.caller = await createTestClient(ctx, { clientId: w.caller.clientId });
    const [o] = await ctx.db.select().from(opcos).where(eq(opcos.id, w.opcoId));
    expect(o!.status).toBe('activated');
    // Still active at Token.io: the re-read changes nothing.
    await worker().runOnce();
    expect((await ctx.db.select().from(opcos).where(eq(opcos.id, w.opcoId)))[0]!.status).toBe('activated');
    standin.control.decideSubTpp(o!.subTppId!, 'DEACTIVATED', 'Merchant offboarded by compliance');
    // The next round (SVC_TOKENIO_SUBTPP_REREAD_SECONDS later, on a new worker) sees it.
    await worker().runOnce();
    const [after] = await ctx.db.select().from(opcos).where(eq(opcos.id, w.opcoId));
    expect(after).toMatchObject({
      status: 'deactivated',
      statusReason: 'The payment network deactivated the Sub-TPP: Merchant offboarded by compliance',
    });
    const changed = (await eventsOf(ctx, w.caller.clientId, 'opco.status_changed')).at(-1)!.data;
    expect(changed).toMatchObject({
      opco_id: w.opcoId,
      previous_opco_status: 'activated',
      current_opco_status: 'deactivated',
      opco_status_reason: 'The payment network deactivated the Sub-TPP: Merchant offboarded by compliance',
    });
    const alerts = (
      await ctx.db.select().from(notifications).where(eq(notifications.clientId, w.caller.clientId))
    ).filter((n) => n.title.includes('deactivated by the payment network'));
    expect(alerts.length).toBeGreaterThan(0);
    expect(alerts[0]!.severity).toBe('critical');
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/paylink',
      headers: { ...w.caller.headers, 'x-idempotency-key': `k-${Date.now()}` },
      payload: paylinkBody(w, { amount: '5.00', currency: 'GBP' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: PaymentMessages.opcoDeactivated });
  });
});
