/**
 * Contract of the Token.io adapter's payment side against the stand-in (written from Token.io's
 * documentation): bank list, session creation without a network call, initiation on behalf of the
 * Sub-TPP, reads, the status table, and what a real network does wrong.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BankProviderError, BankRefusedError, type Payee } from '../../../src/providers/bank/port';
import { isHint, parseHint } from '../../../src/providers/bank/tokenio/adapter';
import { PAYMENT_STATUS_MAP, providerStatusOf } from '../../../src/providers/bank/tokenio/mapping';
import { PAYMENT_STATUSES } from '../../standins/tokenio/fixtures';
import { type AdapterWorld, activatedPayee, freshAdapters, metricValue, startAdapterWorld } from './fixtures';

let w: AdapterWorld;
let payee: Payee;
const returnUrl = 'http://127.0.0.1:8000/checkout/tok_abcdefghijklmnop/return';

beforeAll(async () => {
  w = await startAdapterWorld();
  payee = await activatedPayee(w);
});
afterAll(async () => {
  // Every request the adapter sent is one Token.io's published OpenAPI document allows.
  const violations = w?.standin.control.store.referenceViolations ?? [];
  await w?.standin.close();
  expect(violations).toEqual([]);
});
afterEach(() => {
  w.standin.control.reset();
  freshAdapters(w);
});

const bank = () => w.adapters.bank;
const start = async (
  over: {
    refId?: string;
    bankId?: string;
    amount?: string;
    currency?: string;
    payee?: Payee;
    merchantReference?: string | null;
  } = {},
) => {
  const refId = over.refId ?? (await bank().createSession({} as never)).refId;
  const started = await bank().startAuthorization({
    refId,
    bankId: over.bankId ?? 'ob-modelo',
    returnUrl,
    payment: {
      amount: over.amount ?? '12.50',
      currency: over.currency ?? 'GBP',
      payee: over.payee ?? payee,
      merchantReference: over.merchantReference,
    },
  });
  return { refId, started };
};
const paymentsAtStandin = () => w.standin.control.store.payments.size;

describe('banks', () => {
  it('lists Token.io banks for payments and for mandates, searchable, served from the cache', async () => {
    const payments = await bank().listBanks({ purpose: 'payment' });
    expect(payments.map((b) => b.id)).toContain('ngp-rheinbank');
    const mandates = await bank().listBanks({ purpose: 'mandate' });
    expect(mandates.map((b) => b.id).sort()).toEqual(['ob-harbour', 'ob-modelo']);
    expect((await bank().listBanks({ search: 'modelo' })).map((b) => b.id)).toEqual(['ob-modelo']);
    expect((await bank().listBanks({ country: 'DE' })).map((b) => b.id)).toEqual(['ngp-rheinbank']);
    // Within SVC_TOKENIO_BANKS_CACHE_SECONDS no call is made: a failing Token.io changes nothing.
    w.standin.control.fail('banks.list', { kind: 'status', status: 500 }, 10);
    expect((await bank().listBanks()).length).toBe(payments.length);
  });
});

describe('payments', () => {
  it('a session is a local ref_id (18 letters and digits): no call to Token.io', async () => {
    const before = paymentsAtStandin();
    const { refId } = await bank().createSession({} as never);
    expect(refId).toMatch(/^[a-z0-9]{18}$/);
    expect(paymentsAtStandin()).toBe(before);
  });

  it('bank choice initiates the payment on behalf of the Sub-TPP and answers the bank page', async () => {
    const { refId, started } = await start();
    expect(started.providerStatus).toBe('awaiting_bank_authorization');
    expect(started.authorizationUrl).toBe(
      `${w.standin.url}/bank/payments/${encodeURIComponent(started.transferId)}`,
    );
    const p = w.standin.control.store.payments.get(started.transferId)!;
    expect(p.initiation).toMatchObject({
      bankId: 'ob-modelo',
      refId,
      remittanceInformationPrimary: refId,
      onBehalfOfId: payee.subTppId,
      amount: { value: '12.50', currency: 'GBP' },
      localInstrument: 'FASTER_PAYMENTS',
      creditor: { name: 'Opco Trading Ltd', sortCode: '202015', accountNumber: '55555555' },
      callbackUrl: returnUrl,
      flowType: 'EMBEDDED_HOSTED_PAGES',
    });
  });

  it('the merchant’s reference goes as remittanceInformationSecondary, cleaned to what banks keep (issue 36 point 13)', async () => {
    const { started } = await start({ merchantReference: 'Order #A-1042 / Café' });
    expect(w.standin.control.store.payments.get(started.transferId)!.initiation).toMatchObject({
      remittanceInformationSecondary: 'Order A-1042 Cafe',
    });
    const none = await start({ merchantReference: '***' });
    expect(w.standin.control.store.payments.get(none.started.transferId)!.initiation).not.toHaveProperty(
      'remittanceInformationSecondary',
    );
  });

  it('the payer’s IP goes as token-customer-ip-address, the psuId and the payment context code in risk; nothing when unknown (brief H2 points 2, 3)', async () => {
    const refId = (await bank().createSession({} as never)).refId;
    const started = await bank().startAuthorization({
      refId,
      bankId: 'ob-modelo',
      returnUrl,
      payment: { amount: '12.50', currency: 'GBP', payee },
      payer: { ipAddress: '198.51.100.4', psuId: 'psu-0123456789abcdef' },
    });
    expect(w.standin.control.store.customerIp.get(started.transferId)).toBe('198.51.100.4');
    expect(w.standin.control.store.payments.get(started.transferId)!.initiation.risk).toEqual({
      psuId: 'psu-0123456789abcdef',
      paymentContextCode: 'BILLING_GOODS_AND_SERVICES_IN_ADVANCE',
    });
    const { started: bare } = await start();
    expect(w.standin.control.store.customerIp.get(bare.transferId)).toBeNull();
    expect(w.standin.control.store.payments.get(bare.transferId)!.initiation.risk).toEqual({
      paymentContextCode: 'BILLING_GOODS_AND_SERVICES_IN_ADVANCE',
    });
  });

  it('EUR goes by SEPA Instant to the IBAN', async () => {
    const eur = await activatedPayee(w, 'DE89370400440532013000');
    const { started } = await start({ bankId: 'ngp-rheinbank', currency: 'EUR', payee: eur });
    expect(w.standin.control.store.payments.get(started.transferId)!.initiation).toMatchObject({
      localInstrument: 'SEPA_INSTANT',
      creditor: { iban: 'DE89370400440532013000' },
    });
  });

  it("EUR to a bank without SEPA Instant goes by SEPA, read from the bank's supportedLocalInstruments", async () => {
    const eur = await activatedPayee(w, 'DE89370400440532013000');
    const { started } = await start({ bankId: 'ngp-laguna', currency: 'EUR', payee: eur });
    expect(w.standin.control.store.payments.get(started.transferId)!.initiation).toMatchObject({
      localInstrument: 'SEPA',
    });
  });

  it('a bank that can take none of the payment’s rails, or requires fields we do not send, is not offered and is refused before anything is created (brief H2 point 1)', async () => {
    const listed = await bank().listBanks({ purpose: 'payment' });
    const currencies = Object.fromEntries(listed.map((b) => [b.id, b.currencies]));
    // SEPA only: EUR goes by SEPA, so the bank takes EUR.
    expect(currencies['ngp-laguna']).toEqual(['EUR']);
    // Requires initiation.debtor (mandatoryFields): no currency at all.
    expect(currencies['ngp-pohjola']).toEqual([]);
    // Elixir only: none of our rails.
    expect(currencies['pl-wisla']).toEqual([]);
    expect(currencies['ob-modelo']).toEqual(['GBP']);
    const eur = await activatedPayee(w, 'DE89370400440532013000');
    const before = paymentsAtStandin();
    const debtor = await start({ bankId: 'ngp-pohjola', currency: 'EUR', payee: eur }).catch((e) => e);
    expect(debtor).toBeInstanceOf(BankRefusedError);
    expect(debtor.reason).toMatch(/initiation\.debtor/);
    const elixir = await start({ bankId: 'pl-wisla', currency: 'EUR', payee: eur }).catch((e) => e);
    expect(elixir).toBeInstanceOf(BankRefusedError);
    // A GBP payment at a SEPA-only bank is refused by us, not sent for Token.io to refuse.
    const gbp = await start({ bankId: 'ngp-laguna', currency: 'GBP' }).catch((e) => e);
    expect(gbp).toBeInstanceOf(BankRefusedError);
    expect(gbp.reason).toMatch(/cannot take GBP/);
    expect(paymentsAtStandin()).toBe(before);
  });

  it('refusals are ours: no Sub-TPP, a GBP payee without a UK account, a bank Token.io refuses (no payment made)', async () => {
    const before = paymentsAtStandin();
    await expect(start({ payee: { ...payee, subTppId: null } })).rejects.toBeInstanceOf(BankRefusedError);
    await expect(start({ payee: { ...payee, iban: 'DE89370400440532013000' } })).rejects.toThrow(
      /UK account/,
    );
    const err = await start({ bankId: 'ob-nonexistent' }).catch((e) => e);
    expect(err).toBeInstanceOf(BankRefusedError);
    expect(err.reason).toBe('The bank cannot take this payment'); // not Token.io's text
    // Token.io's tokenTraceId of the failed call travels with the error (brief H2 point 4).
    expect(err.traceId).toMatch(/^trace[a-z0-9]+$/);
    expect(paymentsAtStandin()).toBe(before);
  });

  it('reads the payment by id, and by ref_id when the id was never recorded', async () => {
    const { refId, started } = await start();
    w.standin.control.store.decidePayment(started.transferId, 'approve');
    const byId = await bank().getSession({ refId, transferId: started.transferId });
    expect(byId).toMatchObject({
      transferId: started.transferId,
      providerStatus: 'completed',
      expired: false,
    });
    // By reference, on behalf of the Sub-TPP: Token.io refuses the look-up without it (GetPayments, TB-1549).
    const byRef = await bank().getSession({ refId, transferId: null, onBehalfOfId: payee.subTppId });
    expect(byRef?.transferId).toBe(started.transferId);
    await expect(bank().getSession({ refId, transferId: null })).rejects.toBeInstanceOf(BankRefusedError);
    expect(
      await bank().getSession({
        refId: 'nosuchref000000000',
        transferId: null,
        onBehalfOfId: payee.subTppId,
      }),
    ).toBeNull();
  });

  it('maps every documented status through the one table; anything else is unknown', async () => {
    const { refId, started } = await start();
    for (const status of PAYMENT_STATUSES) {
      w.standin.control.store.payments.get(started.transferId)!.status = status;
      const s = await bank().getSession({ refId, transferId: started.transferId });
      expect(s?.providerStatus).toBe(PAYMENT_STATUS_MAP[status]);
    }
    expect(PAYMENT_STATUSES.filter((st) => !Object.hasOwn(PAYMENT_STATUS_MAP, st))).toEqual([]);
    expect(providerStatusOf('INITIATION_SOMETHING_NEW')).toBe('unknown');
  });

  it('the stand-in refuses what Token.io’s OpenAPI document does not allow (a required field or query parameter left out)', async () => {
    const post = await fetch(`${w.standin.url}/v2/payments`, {
      method: 'POST',
      headers: { authorization: `Basic ${w.standin.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        initiation: { bankId: 'ob-modelo', amount: { value: '1.00', currency: 'GBP' } },
      }),
    });
    expect(post.status).toBe(400);
    expect(((await post.json()) as { error: { message: string } }).error.message).toMatch(
      /^The body does not match the reference: .*refId/,
    );
    const list = await fetch(`${w.standin.url}/v2/payments?onBehalfOfId=x`, {
      headers: { authorization: `Basic ${w.standin.apiKey}` },
    });
    expect(list.status).toBe(400);
    expect(((await list.json()) as { error: { message: string } }).error.message).toBe(
      'Missing required query parameter(s): limit',
    );
    w.standin.control.store.referenceViolations.length = 0;
  });

  it('a hint names the payment; its status is never read', () => {
    const body = JSON.stringify({
      eventType: 'PAYMENT_STATUS_CHANGED',
      payment: { id: 'pm2:a:b', status: 'INITIATION_COMPLETED', initiation: { refId: 'r1' } },
    });
    expect(parseHint(body)).toEqual({ paymentId: 'pm2:a:b', refId: 'r1', consentId: null });
    expect(parseHint(JSON.stringify({ eventType: 'X', vrpConsent: { id: 'vc:1' } }))).toMatchObject({
      consentId: 'vc:1',
    });
    // The reference's VRP objects as roots (issue 36 point 11): `vrp` (a VRP payment), or one naming only its consent.
    expect(
      parseHint(
        JSON.stringify({ vrp: { id: 'pm2:v:1', initiation: { refId: 'r2', vrpConsentId: 'vc:2' } } }),
      ),
    ).toEqual({
      paymentId: 'pm2:v:1',
      refId: 'r2',
      consentId: null,
    });
    expect(parseHint(JSON.stringify({ vrp: { initiation: { vrpConsentId: 'vc:3' } } }))).toMatchObject({
      paymentId: null,
      consentId: 'vc:3',
    });
    expect(parseHint('not json')).toBeNull();
    // A body that names nothing: only its top-level keys come out (for the log), never values.
    const nothing = parseHint(JSON.stringify({ eventType: 'NEW_THING', secretish: { iban: 'GB00' } }));
    expect(nothing).toEqual({ keys: ['eventType', 'secretish'] });
    expect(isHint(nothing)).toBe(false);
  });
});

describe('a real network misbehaving', () => {
  it('429 with Retry-After on a read: waited for, then answered', async () => {
    const { refId, started } = await start();
    w.standin.control.fail('payments.get', { kind: 'status', status: 429, retryAfter: '1' });
    const t0 = Date.now();
    const s = await bank().getSession({ refId, transferId: started.transferId });
    expect(s?.providerStatus).toBe('awaiting_bank_authorization');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('5xx and a dropped connection on reads are retried with backoff', async () => {
    const { refId, started } = await start();
    w.standin.control.fail('payments.get', { kind: 'status', status: 503 });
    w.standin.control.fail('payments.get', { kind: 'reset' });
    expect((await bank().getSession({ refId, transferId: started.transferId }))?.transferId).toBe(
      started.transferId,
    );
    w.standin.control.fail('payments.get', { kind: 'status', status: 500 }, 3);
    const err = await bank()
      .getSession({ refId, transferId: started.transferId })
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankProviderError);
    // The 5xx body's tokenTraceId is kept (brief H2 point 4).
    expect(err.traceId).toMatch(/^trace[a-z0-9]+$/);
  });

  it('initiation is never repeated: a 429 or 5xx before Token.io acted fails, and nothing is created', async () => {
    const before = paymentsAtStandin();
    w.standin.control.fail('payments.initiate', { kind: 'status', status: 429, retryAfter: '1' });
    await expect(start()).rejects.toBeInstanceOf(BankProviderError);
    w.standin.control.fail('payments.initiate', { kind: 'status', status: 500 });
    await expect(start()).rejects.toBeInstanceOf(BankProviderError);
    expect(paymentsAtStandin()).toBe(before);
  });

  it('an unknown outcome (5xx after the effect, or an answer past our deadline) is resolved by ref_id: one payment', async () => {
    const before = paymentsAtStandin();
    w.standin.control.fail('payments.initiate', { kind: 'status', status: 500, afterEffect: true });
    const a = await start();
    expect(a.started.providerStatus).toBe('awaiting_bank_authorization');
    w.standin.control.fail('payments.initiate', { kind: 'delay', ms: 2600 });
    const b = await start();
    expect(b.started.transferId).not.toBe(a.started.transferId);
    expect(paymentsAtStandin()).toBe(before + 2);
    expect(w.standin.control.store.listPayments({ refIds: [b.refId] })).toHaveLength(1);
  });

  it('429s are throttling, not an outage: they never open the circuit breaker (issue 36 point 13)', async () => {
    w.standin.control.fail('payments.get', { kind: 'status', status: 429 }, 20);
    for (let i = 0; i < 6; i++)
      await expect(bank().getSession({ refId: 'r', transferId: 'pm2:x:y' })).rejects.toBeInstanceOf(
        BankProviderError,
      );
    expect(await metricValue(w.metrics, 'svc_upstream_breaker_state', { upstream: 'tokenio' })).toBe(0);
  });

  it('the circuit breaker opens after repeated failures (calls then fail at once) and closes after its cooldown', async () => {
    const { refId, started } = await start();
    const ref = { refId, transferId: started.transferId };
    w.standin.control.fail('payments.get', { kind: 'status', status: 502 }, 100);
    await expect(bank().getSession(ref)).rejects.toBeInstanceOf(BankProviderError);
    await expect(bank().getSession(ref)).rejects.toBeInstanceOf(BankProviderError);
    const open = await bank()
      .getSession(ref)
      .catch((e) => e);
    expect(String(open.cause?.kind)).toBe('circuit_open');
    expect(await metricValue(w.metrics, 'svc_upstream_breaker_state', { upstream: 'tokenio' })).toBe(2);
    w.standin.control.clearFaults();
    await new Promise((r) => setTimeout(r, 1100));
    expect((await bank().getSession(ref))?.transferId).toBe(started.transferId);
    expect(await metricValue(w.metrics, 'svc_upstream_breaker_state', { upstream: 'tokenio' })).toBe(0);
    expect(
      await metricValue(w.metrics, 'svc_upstream_errors_total', {
        operation: 'payments.get',
        kind: 'circuit_open',
      }),
    ).toBeGreaterThan(0);
  });
});

describe('a slow bank', () => {
  let slow: AdapterWorld;
  beforeAll(async () => {
    slow = await startAdapterWorld({ bankAckDelayMs: 1300 });
  });
  afterAll(() => slow?.standin.close());

  it('request-timeout makes Token.io answer INITIATION_PENDING in time; the redirect URL is read afterwards', async () => {
    const p = await activatedPayee(slow);
    const { refId } = await slow.adapters.bank.createSession({} as never);
    const started = await slow.adapters.bank.startAuthorization({
      refId,
      bankId: 'ob-modelo',
      returnUrl,
      payment: { amount: '3.00', currency: 'GBP', payee: p },
    });
    expect(started.providerStatus).toBe('awaiting_bank_authorization');
    expect(started.authorizationUrl).toContain('/bank/payments/');
  });
});
