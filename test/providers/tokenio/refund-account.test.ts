/**
 * The service in production mode against the Token.io stand-in with SVC_TOKENIO_RETURN_REFUND_ACCOUNT
 * and SVC_TOKENIO_REFUNDS_ENABLED on: the checkout shows Token.io's amended consent (and our privacy
 * notice) for the banks that are asked, the payment asks the bank for the payer's account, and the
 * account the paid payment returns (`refundDetails`) is kept on the transaction sealed with the data
 * key (also when the expiry sweep is the first to read it), never in the API answer, the webhooks or
 * the logs, and erased after the retention window. A REFUND_STATUS_CHANGED notification is a hint:
 * the refund is read at Token.io before anything.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opcos, transactions } from '../../../src/db/schema/index';
import { consentFor } from '../../../src/modules/checkout/checkout.service';
import { createNetworkReconcileWorker as createTokenioWorker } from '../../../src/modules/payments/network-reconcile.worker';
import { refundAccountOfTransaction } from '../../../src/modules/payments/network-sync.service';
import { expireDuePayments } from '../../../src/modules/payments/payments.service';
import { eraseLapsedRefundAccounts } from '../../../src/modules/payments/refund-account-retention.worker';
import type { TokenioBank } from '../../../src/providers/bank/tokenio/adapter';
import { TOKENIO_WEBHOOK_PATH, tokenioSettings } from '../../../src/providers/bank/tokenio/config';
import { tokenioRefundRefId } from '../../../src/providers/bank/tokenio/refunds';
import type { TestContext } from '../../helpers/app';
import { rememberSecret } from '../../helpers/log-capture';
import { eventsOf } from '../../org/fixtures';
import {
  createPaylink,
  createPaymentWorld,
  type PaymentWorld,
  pickBank,
  tokenOf,
} from '../../payments/fixtures';
import { type RunningStandin, startTokenioStandin } from '../../standins/tokenio/server';
import { startTokenioApp, WEBHOOK_SECRET } from './fixtures';

let standin: RunningStandin;
let ctx: TestContext;
let w: PaymentWorld;
let subTppId: string;
const ACCOUNT_NUMBER = '41234567';
const PRIVACY_URL = 'https://acme.example/privacy';

beforeAll(async () => {
  standin = await startTokenioStandin();
  ctx = await startTokenioApp(standin, {
    SVC_TOKENIO_RETURN_REFUND_ACCOUNT: 'true',
    SVC_TOKENIO_REFUNDS_ENABLED: 'true',
    SVC_PRIVACY_NOTICE_URL: PRIVACY_URL,
  });
  w = await createPaymentWorld(ctx, { productionAccess: true });
  const s = standin.control.store.createSubTpp({
    name: 'Acme Payments',
    domain: 'acme.example.com',
    merchant: { iban: 'GB82WEST12345698765432' },
  });
  standin.control.decideSubTpp(s.id, 'ACTIVATED');
  subTppId = s.id;
  await ctx.db.update(opcos).set({ subTppId: s.id }).where(eq(opcos.id, w.opcoId));
  // The stand-in bank's payer account: it must never reach a log line.
  rememberSecret(ACCOUNT_NUMBER, 'payer refund account number');
}, 60_000);
afterAll(async () => {
  const violations = standin?.control.store.referenceViolations ?? [];
  await ctx?.close();
  await standin?.close();
  expect(violations).toEqual([]);
});

const tx = async (id: string) =>
  (await ctx.db.select().from(transactions).where(eq(transactions.id, id)))[0]!;
const hint = (body: unknown) =>
  ctx.app.inject({
    method: 'POST',
    url: `${TOKENIO_WEBHOOK_PATH}/${WEBHOOK_SECRET}`,
    payload: body as object,
  });

async function paidAt(bankId: string) {
  const t = await createPaylink(ctx, w, { amount: '20.00', currency: 'GBP' });
  await pickBank(ctx, t.checkout_url, bankId);
  await standin.control.notifier.idle();
  const transferId = (await tx(t.transaction_id)).transferId!;
  standin.control.store.decidePayment(transferId, 'approve');
  // The payer is back: the return page reads the payment at Token.io (no webhook registered here).
  await ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}/return` });
  return { t, transferId };
}

describe('the payer’s refund account (returnRefundAccount)', () => {
  it('the checkout shows Token.io’s amended consent, word for word, with our privacy notice, for the banks that are asked', async () => {
    const t = await createPaylink(ctx, w, { amount: '21.50', currency: 'GBP' });
    const page = await ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}` });
    const body = page.body.replaceAll('&#39;', "'").replaceAll('&#x27;', "'");
    expect(body).toContain(
      "You can use Token's payment service to make a secure payment directly from your bank account to the benefit of the Acme",
    );
    expect(body).toContain(
      'We will ask your bank to share your account details. We will only use these details when necessary such as processing a refund request.',
    );
    expect(body).toContain("The terms governing your use of Token's service can be found at");
    expect(body).toContain(`href="${PRIVACY_URL}"`);
    // The stand-in offers banks that are asked (ob-modelo) and one that is not (ob-greenleaf): both
    // sentences, the style sheet showing the one for the checked bank.
    expect(body).toMatch(/id="bank-ob-modelo"[^>]*data-refund-account/);
    expect(body).not.toMatch(/id="bank-ob-greenleaf"[^>]*data-refund-account/);
    expect(body).toContain('consent-plain');
    expect(body).toContain('consent-ra');
    // A mandate never asks the bank for the account: its page has the plain sentence only.
    expect(await consentFor(ctx.deps, w.projectId, 'mandate')).not.toHaveProperty('refundAccount');
  });

  it('kept sealed on the transaction when the paid payment returns it; never in the API answer or the webhooks', async () => {
    const { t, transferId } = await paidAt('ob-modelo');
    expect(standin.control.store.payments.get(transferId)!.initiation.returnRefundAccount).toBe(true);
    const row = await tx(t.transaction_id);
    expect(row.status).toBe('success');
    expect(row.refundAccountEnc).toMatch(/^v1\./);
    expect(row.refundAccountEnc).not.toContain(ACCOUNT_NUMBER);
    expect(refundAccountOfTransaction(ctx.deps, row)).toEqual({
      name: 'Pat Payer',
      iban: null,
      bic: null,
      sortCode: '040004',
      accountNumber: ACCOUNT_NUMBER,
    });
    const api = await ctx.app.inject({
      url: `/api/v1/transactions/${t.transaction_id}`,
      headers: w.caller.headers,
    });
    expect(api.statusCode).toBe(200);
    expect(api.body).not.toContain(ACCOUNT_NUMBER);
    expect(api.body).not.toContain('refund_account');
    const events = await eventsOf(ctx, w.caller.clientId, 'payment.status_changed');
    expect(JSON.stringify(events)).not.toContain(ACCOUNT_NUMBER);
    // A later read of the same payment does not seal it again.
    await hint({ payment: { id: transferId } });
    expect((await tx(t.transaction_id)).refundAccountEnc).toBe(row.refundAccountEnc);
  });

  it('sealed also when the expiry sweep is the first to read the paid payment (review 3.3)', async () => {
    const t = await createPaylink(ctx, w, { amount: '20.00', currency: 'GBP' });
    await pickBank(ctx, t.checkout_url, 'ob-modelo');
    await standin.control.notifier.idle();
    const transferId = (await tx(t.transaction_id)).transferId!;
    standin.control.store.decidePayment(transferId, 'approve');
    // The payer never came back and no hint arrived; the link's lifetime is over.
    await ctx.db
      .update(transactions)
      .set({ expiresAt: new Date(ctx.deps.clock.now().getTime() - 60_000) })
      .where(eq(transactions.id, t.transaction_id));
    await expireDuePayments(ctx.deps);
    const row = await tx(t.transaction_id);
    expect(row.status).toBe('success');
    expect(refundAccountOfTransaction(ctx.deps, row)?.accountNumber).toBe(ACCOUNT_NUMBER);
  });

  it('erased after SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS (GDPR: we are the data controller)', async () => {
    expect(tokenioSettings(ctx.deps.config)!.refunds.retentionDays).toBe(180);
    const old = await paidAt('ob-modelo');
    const recent = await paidAt('ob-modelo');
    expect((await tx(old.t.transaction_id)).refundAccountEnc).not.toBeNull();
    await ctx.db
      .update(transactions)
      .set({ createdAt: new Date(ctx.deps.clock.now().getTime() - 181 * 86_400_000) })
      .where(eq(transactions.id, old.t.transaction_id));
    expect(await eraseLapsedRefundAccounts(ctx.deps, 180)).toBe(1);
    expect((await tx(old.t.transaction_id)).refundAccountEnc).toBeNull();
    expect((await tx(recent.t.transaction_id)).refundAccountEnc).not.toBeNull();
    expect(await eraseLapsedRefundAccounts(ctx.deps, 180)).toBe(0);
  });

  it('a bank that does not support it is not asked; nothing is stored', async () => {
    const { t, transferId } = await paidAt('ob-greenleaf');
    expect(standin.control.store.payments.get(transferId)!.initiation).not.toHaveProperty(
      'returnRefundAccount',
    );
    const row = await tx(t.transaction_id);
    expect(row.status).toBe('success');
    expect(row.refundAccountEnc).toBeNull();
  });
});

describe('refund notifications', () => {
  it('a REFUND_STATUS_CHANGED hint is read at Token.io first and names Token.io’s refund id; a forged or unknown refund changes nothing', async () => {
    const { transferId } = await paidAt('ob-modelo');
    const bank = ctx.deps.providers.bank as TokenioBank;
    const refundId = '0193a0c4-0000-7000-8000-0000000000aa';
    const r = await bank.refunds!.initiateRefund({
      refundId,
      transactionId: '0193a0c4-0000-7000-8000-0000000000ab',
      originalTransferId: transferId,
      amount: '1.53',
      currency: 'GBP',
      description: 'Refund',
      payee: { name: 'Acme', iban: 'GB82WEST12345698765432', bic: null, subTppId },
    });
    const res = await hint({
      eventType: 'REFUND_STATUS_CHANGED',
      refund: { id: r.networkRefundId, status: 'INITIATION_COMPLETED' },
    });
    expect(res.statusCode).toBe(200);
    // The notification the route applies: `transferId` is Token.io's refund id (the refunds feature
    // matches it against network_refund_id first), `refId` the 18-character digest Token.io holds,
    // not our refund id (a UUID is 36 characters).
    const n = await bank.refunds!.notificationFor(r.networkRefundId!, new Date());
    expect(n).toMatchObject({ kind: 'refund', transferId: r.networkRefundId });
    expect(n!.refId).toBe(tokenioRefundRefId(refundId));
    expect(n!.refId).not.toBe(refundId);
    // This refund was sent by the adapter directly, not through the refunds feature: no refund row
    // of ours has that network_refund_id, so nothing is applied.
    expect(res.json()).toEqual({ received: true, applied: false });
    expect((await hint({ refund: { id: 'rf:unknown:x' } })).json()).toEqual({
      received: true,
      applied: false,
    });
  });
});

describe('refund notifications from Token.io', () => {
  it('REFUND_STATUS_CHANGED is subscribed; doubled, held and reversed deliveries are each read and acknowledged', async () => {
    await createTokenioWorker(ctx.deps)!.runOnce(); // PUT /webhook/config
    expect(standin.control.notifier.config?.type).toContain('REFUND_STATUS_CHANGED');
    const { transferId } = await paidAt('ob-modelo');
    await standin.control.notifier.idle();
    const bank = ctx.deps.providers.bank as TokenioBank;
    const from = standin.control.notifier.deliveries.length;
    standin.control.notifier.hold();
    standin.control.notifier.setDuplicate(true);
    const r = await bank.refunds!.initiateRefund({
      refundId: '0193a0c4-0000-7000-8000-0000000000ba',
      transactionId: '0193a0c4-0000-7000-8000-0000000000bb',
      originalTransferId: transferId,
      amount: '2.00',
      currency: 'GBP',
      description: null,
      payee: { name: 'Acme', iban: 'GB82WEST12345698765432', bic: null, subTppId },
    });
    expect(r.outcome).toBe('succeeded');
    await standin.control.notifier.release({ reverse: true });
    standin.control.notifier.reset();
    const refundDeliveries = standin.control.notifier.deliveries
      .slice(from)
      .filter((d) => d.eventType === 'REFUND_STATUS_CHANGED');
    // Created, processing, completed: each twice, newest first, every one answered 200.
    expect(refundDeliveries).toHaveLength(6);
    expect(refundDeliveries.every((d) => d.outcome === 200)).toBe(true);
    expect(JSON.parse(refundDeliveries[0]!.body)).toMatchObject({
      eventType: 'REFUND_STATUS_CHANGED',
      refund: { id: r.networkRefundId, status: 'INITIATION_COMPLETED' },
    });
  });
});
