/**
 * Contract of the Token.io adapter's refund side against the stand-in (written from Token.io's
 * documentation, docs/vendors/tokenio.md "Refunds"): the payer's refund account asked at initiation
 * and read back, POST /refunds sent once and resolved by refId, reads by id and by refId, every
 * documented refund status, refundProblem, refund hints, and what a real network does wrong.
 */
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config';
import {
  BankProviderError,
  BankRefusedError,
  type Payee,
  type RefundInput,
  RefundNeedsReviewError,
} from '../../../src/providers/bank/port';
import { isHint, parseHint } from '../../../src/providers/bank/tokenio/adapter';
import {
  DEFAULT_CONSENT_REFUND_TERMS_LEAD,
  DEFAULT_CONSENT_REFUND_TEXT,
  tokenioSettings,
} from '../../../src/providers/bank/tokenio/config';
import { createTokenio } from '../../../src/providers/bank/tokenio/index';
import {
  NO_FINAL_STATUS_REVIEW,
  REFUND_STATUS_MAP,
  refundDescription,
  tokenioRefundRefId,
} from '../../../src/providers/bank/tokenio/refunds';
import { PRODUCTION_ENV } from '../../helpers/app';
import { captureLogger } from '../../helpers/log-capture';
import { REFUND_STATUSES } from '../../standins/tokenio/fixtures';
import { type AdapterWorld, activatedPayee, freshAdapters, startAdapterWorld } from './fixtures';

let w: AdapterWorld;
let payee: Payee;
const returnUrl = 'http://127.0.0.1:8000/checkout/tok_abcdefghijklmnop/return';

beforeAll(async () => {
  w = await startAdapterWorld({}, { SVC_TOKENIO_RETURN_REFUND_ACCOUNT: 'true' });
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
const store = () => w.standin.control.store;
let n = 0;
const refundId = () => `0193a0c4-0000-7000-8000-${String(++n).padStart(12, '0')}`;

/** A payment paid at the stand-in (the payer approved at `bankId`). */
async function paid(over: { bankId?: string; amount?: string; currency?: string; payee?: Payee } = {}) {
  const { refId } = await bank().createSession({} as never);
  const started = await bank().startAuthorization({
    refId,
    bankId: over.bankId ?? 'ob-modelo',
    returnUrl,
    payment: {
      amount: over.amount ?? '20.00',
      currency: over.currency ?? 'GBP',
      payee: over.payee ?? payee,
    },
  });
  store().decidePayment(started.transferId, 'approve');
  return { refId, transferId: started.transferId };
}

const input = (transferId: string, over: Partial<RefundInput> = {}): RefundInput => ({
  refundId: refundId(),
  transactionId: '0193a0c4-0000-7000-8000-00000000ffff',
  originalTransferId: transferId,
  amount: '5.00',
  currency: 'GBP',
  description: 'Returned: blue mug #42',
  payee,
  ...over,
});

describe('the payer’s refund account', () => {
  it('asked with returnRefundAccount from banks that support it, and read back on the session', async () => {
    const { refId, transferId } = await paid();
    expect(store().payments.get(transferId)!.initiation.returnRefundAccount).toBe(true);
    const s = await bank().getSession({ refId, transferId });
    expect(s?.refundAccount).toEqual({
      name: 'Pat Payer',
      iban: null,
      bic: null,
      sortCode: '040004',
      accountNumber: '41234567',
    });
    // A bank without supportsReturnRefundAccount is not asked; its payment has no account.
    const other = await paid({ bankId: 'ob-greenleaf' });
    expect(store().payments.get(other.transferId)!.initiation).not.toHaveProperty('returnRefundAccount');
    expect(
      (await bank().getSession({ refId: other.refId, transferId: other.transferId }))?.refundAccount,
    ).toBe(undefined);
  });

  it('the amended consent is Token.io’s word for word, offered for payments only, next to the plain one', () => {
    // https://docs.token.io/products/tpp/integration-considerations/user-consent-collection,
    // "PIS with returnRefundAccount consent" ("Token's", "the [TPP name]").
    const notice = bank().consentNotice('Acme Ltd')!;
    expect(notice.refundAccount).toEqual({
      text: "You can use Token's payment service to make a secure payment directly from your bank account to the benefit of the Acme Ltd. We will ask your bank to share your account details. We will only use these details when necessary such as processing a refund request.",
      termsLead: "The terms governing your use of Token's service can be found at",
      privacyNoticeUrl: null,
    });
    expect(DEFAULT_CONSENT_REFUND_TERMS_LEAD).toBe(notice.refundAccount!.termsLead);
    // The plain sentence stays for banks that are not asked; a mandate never asks for the account.
    expect(notice.text).not.toContain('share your account details');
    expect(bank().consentNotice('Acme Ltd', 'mandate')).not.toHaveProperty('refundAccount');
  });

  it('the bank list says which banks are asked for the account (payments only)', async () => {
    const banks = await bank().listBanks();
    expect(banks.find((b) => b.id === 'ob-modelo')?.asksRefundAccount).toBe(true);
    expect(banks.find((b) => b.id === 'ob-greenleaf')).not.toHaveProperty('asksRefundAccount');
    expect((await bank().listBanks({ purpose: 'mandate' })).some((b) => b.asksRefundAccount)).toBe(false);
  });
});

describe('refundProblem', () => {
  it('null for a paid payment with a refund account; a sentence otherwise', async () => {
    const ok = await paid();
    expect(
      await bank().refunds!.refundProblem({ transactionId: 'x', transferId: ok.transferId, currency: 'GBP' }),
    ).toBeNull();
    const noAccount = await paid({ bankId: 'ob-greenleaf' });
    expect(
      await bank().refunds!.refundProblem({
        transactionId: 'x',
        transferId: noAccount.transferId,
        currency: 'GBP',
      }),
    ).toMatch(/did not share the payer's account.*bank transfer/);
    expect(
      await bank().refunds!.refundProblem({ transactionId: 'x', transferId: null, currency: 'GBP' }),
    ).toMatch(/no Token.io payment/);
    expect(
      await bank().refunds!.refundProblem({
        transactionId: 'x',
        transferId: 'pm2:unknown:x',
        currency: 'GBP',
      }),
    ).toMatch(/does not know this payment/);
  });

  it('a rail Token.io cannot refund (reference: SEPA, SEPA Instant, Faster Payments only)', async () => {
    const ok = await paid();
    store().payments.get(ok.transferId)!.initiation.localInstrument = 'EU_DOMESTIC_NON_EURO_INSTANT';
    expect(
      await bank().refunds!.refundProblem({ transactionId: 'x', transferId: ok.transferId, currency: 'PLN' }),
    ).toMatch(/only go by SEPA, SEPA Instant or Faster Payments/);
  });
});

describe('initiateRefund', () => {
  it('POST /refunds with the documented body on behalf of the Sub-TPP; partial then full', async () => {
    const { transferId } = await paid();
    const one = input(transferId, { amount: '5.00' });
    const r = await bank().refunds!.initiateRefund(one);
    expect(r).toMatchObject({ outcome: 'succeeded', providerStatus: 'INITIATION_COMPLETED', reason: null });
    expect(r.networkRefundId).toMatch(/^rf:/);
    const sent = store().refunds.get(r.networkRefundId!)!;
    expect(sent.initiation).toMatchObject({
      refId: tokenioRefundRefId(one.refundId),
      originalPaymentId: transferId,
      amount: { value: '5.00', currency: 'GBP' },
      localInstrument: 'FASTER_PAYMENTS',
      description: 'Returned blue mug',
      onBehalfOfId: payee.subTppId,
    });
    // The rest, in full: Token.io's remaining amount reaches zero.
    expect((await bank().refunds!.initiateRefund(input(transferId, { amount: '15.00' }))).outcome).toBe(
      'succeeded',
    );
    expect(store().payments.get(transferId)!.refundDetails).toMatchObject({
      paymentRefundStatus: 'FULL',
      remainingRefundAmount: { value: '0.00' },
    });
    // Above what is left: Token.io refuses (4xx), our sentence, nothing sent twice.
    const err = await bank()
      .refunds!.initiateRefund(input(transferId, { amount: '1.00' }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankRefusedError);
    expect(err.reason).toMatch(/already refunded in full|refused the refund/);
  });

  it('EUR goes back by the rail the payment took (SEPA Instant)', async () => {
    const eur = await activatedPayee(w, 'DE89370400440532013000');
    const { transferId } = await paid({ bankId: 'ngp-rheinbank', currency: 'EUR', payee: eur });
    const r = await bank().refunds!.initiateRefund(
      input(transferId, { currency: 'EUR', payee: eur, amount: '2.50', description: null }),
    );
    expect(store().refunds.get(r.networkRefundId!)!.initiation).toMatchObject({
      localInstrument: 'SEPA_INSTANT',
      description: 'Refund',
    });
  });

  it('sent once: a lost answer is resolved by refId; a repeat finds the earlier refund instead of posting again', async () => {
    const { transferId } = await paid();
    const one = input(transferId);
    const before = store().refundCreations;
    // Token.io takes the refund, the answer is lost (connection dropped after the work).
    w.standin.control.fail('refunds.initiate', { kind: 'reset', afterEffect: true });
    const r = await bank().refunds!.initiateRefund(one);
    expect(r.outcome).toBe('succeeded');
    expect(store().refundCreations).toBe(before + 1);
    // The feature's job runs again with the same refund id: found by refId, no second POST.
    const again = await bank().refunds!.initiateRefund(one);
    expect(again.networkRefundId).toBe(r.networkRefundId);
    expect(store().refundCreations).toBe(before + 1);
  });

  it('a lost answer that Token.io never saw: BankProviderError (retried later), nothing created; 5xx and 429 the same', async () => {
    const { transferId } = await paid();
    const before = store().refundCreations;
    w.standin.control.fail('refunds.initiate', { kind: 'status', status: 503 });
    await expect(bank().refunds!.initiateRefund(input(transferId))).rejects.toBeInstanceOf(BankProviderError);
    w.standin.control.fail('refunds.initiate', { kind: 'status', status: 429, retryAfter: '1' });
    const err = await bank()
      .refunds!.initiateRefund(input(transferId))
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankProviderError);
    expect(err).not.toBeInstanceOf(BankRefusedError);
    expect(store().refundCreations).toBe(before);
    // The look-up before the POST failing too: unknown, retried later, never a blind POST.
    w.standin.control.fail('refunds.list', { kind: 'status', status: 500 }, 3);
    await expect(bank().refunds!.initiateRefund(input(transferId))).rejects.toBeInstanceOf(BankProviderError);
    expect(store().refundCreations).toBe(before);
  });

  it('refused before any call when the payment has no refund account or the opco no Sub-TPP', async () => {
    const { transferId } = await paid({ bankId: 'ob-greenleaf' });
    const before = store().refundCreations;
    const err = await bank()
      .refunds!.initiateRefund(input(transferId))
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankRefusedError);
    expect(err.reason).toMatch(/did not share the payer's account/);
    await expect(
      bank().refunds!.initiateRefund(input(transferId, { payee: { ...payee, subTppId: null } })),
    ).rejects.toBeInstanceOf(BankRefusedError);
    expect(store().refundCreations).toBe(before);
  });

  it('the bank rejecting the refund: failed with our sentence (Token.io’s text stays in the logs)', async () => {
    const { transferId } = await paid();
    const r = await bank().refunds!.initiateRefund(input(transferId, { amount: '1.52' }));
    expect(r).toMatchObject({ outcome: 'failed', providerStatus: 'INITIATION_REJECTED' });
    expect(r.reason).toBe('The bank rejected the refund');
  });
});

describe('never refunded twice (review 2.2, 2.3, 2.4)', () => {
  it('a retry whose earlier POST reached Token.io but is not listed yet: remainingRefundAmount shows it, no second POST', async () => {
    const { transferId } = await paid();
    const one = input(transferId, { amount: '5.00', alreadyRefunded: '0.00' });
    const before = store().refundCreations;
    // Token.io takes the refund, the answer is lost, and GET /refunds does not list it yet.
    store().refundListingLag = true;
    w.standin.control.fail('refunds.initiate', { kind: 'reset', afterEffect: true });
    await expect(bank().refunds!.initiateRefund(one)).rejects.toBeInstanceOf(BankProviderError);
    expect(store().refundCreations).toBe(before + 1);
    // The job tries again: the refId look-up still finds nothing, the payment shows 15.00 left, not 20.00.
    const err = await bank()
      .refunds!.initiateRefund(one)
      .catch((e) => e);
    expect(err).toBeInstanceOf(RefundNeedsReviewError);
    expect(err).not.toBeInstanceOf(BankRefusedError);
    expect(err.reason).toMatch(/a refund we do not know of.*not sent/);
    expect(store().refundCreations).toBe(before + 1);
  });

  it('what Token.io shows matches our own refunds: sent (a second partial refund, or Token.io showing more left)', async () => {
    const { transferId } = await paid();
    await bank().refunds!.initiateRefund(input(transferId, { amount: '5.00', alreadyRefunded: '0.00' }));
    const r = await bank().refunds!.initiateRefund(
      input(transferId, { amount: '5.00', alreadyRefunded: '5.00' }),
    );
    expect(r.outcome).toBe('succeeded');
    // One of ours that never reached Token.io counts as refunded on our side: more left there is fine.
    expect(
      (await bank().refunds!.initiateRefund(input(transferId, { amount: '1.00', alreadyRefunded: '12.00' })))
        .outcome,
    ).toBe('succeeded');
    // Less left there than ours leave: held.
    await expect(
      bank().refunds!.initiateRefund(input(transferId, { amount: '1.00', alreadyRefunded: '5.00' })),
    ).rejects.toBeInstanceOf(RefundNeedsReviewError);
  });

  it('several refunds under one refId at Token.io: held for review, whether sending or reading', async () => {
    const { transferId } = await paid();
    const one = input(transferId, { amount: '1.00' });
    const refId = tokenioRefundRefId(one.refundId);
    const initiation = {
      refId,
      originalPaymentId: transferId,
      amount: { value: '1.00', currency: 'GBP' },
      localInstrument: 'FASTER_PAYMENTS',
      description: 'Refund',
      onBehalfOfId: payee.subTppId!,
    };
    store().createRefund(initiation as never);
    store().createRefund(initiation as never);
    const before = store().refundCreations;
    await expect(bank().refunds!.initiateRefund(one)).rejects.toBeInstanceOf(RefundNeedsReviewError);
    await expect(
      bank().refunds!.getRefund({
        refundId: one.refundId,
        networkRefundId: null,
        onBehalfOfId: payee.subTppId,
      }),
    ).rejects.toThrow(/several refunds under this refund’s reference/);
    expect(store().refundCreations).toBe(before);
  });

  it('a 403 on POST /refunds is a refusal (refunds not enabled for the member), not a credentials problem retried for days', async () => {
    const { transferId } = await paid();
    w.standin.control.fail('refunds.initiate', { kind: 'status', status: 403 });
    const err = await bank()
      .refunds!.initiateRefund(input(transferId))
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankRefusedError);
    expect(err.reason).toMatch(/^Refunds are not enabled for this Token.io member/);
  });
});

describe('which payments can be refunded (review 5.2)', () => {
  it('only INITIATION_COMPLETED and SETTLEMENT_COMPLETED; SETTLEMENT_IN_PROGRESS and SETTLEMENT_INCOMPLETE say why', async () => {
    const ok = await paid();
    const problem = () =>
      bank().refunds!.refundProblem({ transactionId: 'x', transferId: ok.transferId, currency: 'GBP' });
    const payment = store().payments.get(ok.transferId)!;
    payment.status = 'SETTLEMENT_COMPLETED';
    expect(await problem()).toBeNull();
    payment.status = 'SETTLEMENT_IN_PROGRESS';
    expect(await problem()).toMatch(/not yet seen this payment reach the merchant’s account/);
    payment.status = 'SETTLEMENT_INCOMPLETE';
    expect(await problem()).toMatch(/reconciliation failed.*bank transfer/);
    const before = store().refundCreations;
    await expect(bank().refunds!.initiateRefund(input(ok.transferId))).rejects.toBeInstanceOf(
      BankRefusedError,
    );
    expect(store().refundCreations).toBe(before);
  });
});

describe('getRefund and statuses', () => {
  it('reads by Token.io’s id, else by refId on behalf of the Sub-TPP; null when Token.io has none', async () => {
    const { transferId } = await paid();
    const one = input(transferId, { amount: '1.53' });
    const r = await bank().refunds!.initiateRefund(one);
    expect(r.outcome).toBe('processing');
    store().setRefundStatus(r.networkRefundId!, 'INITIATION_COMPLETED');
    const byId = await bank().refunds!.getRefund({
      refundId: one.refundId,
      networkRefundId: r.networkRefundId,
      onBehalfOfId: null,
    });
    expect(byId).toMatchObject({ outcome: 'succeeded', networkRefundId: r.networkRefundId });
    const byRef = await bank().refunds!.getRefund({
      refundId: one.refundId,
      networkRefundId: null,
      onBehalfOfId: payee.subTppId,
    });
    expect(byRef?.networkRefundId).toBe(r.networkRefundId);
    expect(
      await bank().refunds!.getRefund({
        refundId: refundId(),
        networkRefundId: null,
        onBehalfOfId: payee.subTppId,
      }),
    ).toBeNull();
    expect(
      await bank().refunds!.getRefund({
        refundId: one.refundId,
        networkRefundId: 'rf:none:x',
        onBehalfOfId: null,
      }),
    ).toBeNull();
  });

  it('every documented status maps: COMPLETED succeeded, REJECTED/FAILED failed, NO_FINAL_STATUS stays processing (money may have moved)', async () => {
    expect(REFUND_STATUSES.filter((s) => !Object.hasOwn(REFUND_STATUS_MAP, s))).toEqual([]);
    const { transferId } = await paid();
    const one = input(transferId, { amount: '1.53' });
    const r = await bank().refunds!.initiateRefund(one);
    const expected = {
      INITIATION_PENDING: 'processing',
      INITIATION_PROCESSING: 'processing',
      INITIATION_COMPLETED: 'succeeded',
      INITIATION_REJECTED: 'failed',
      INITIATION_FAILED: 'failed',
      INITIATION_NO_FINAL_STATUS_AVAILABLE: 'processing',
    } as const;
    for (const status of REFUND_STATUSES) {
      store().refunds.get(r.networkRefundId!)!.status = status;
      const read = await bank().refunds!.getRefund({
        refundId: one.refundId,
        networkRefundId: r.networkRefundId,
        onBehalfOfId: null,
      });
      expect(read?.outcome).toBe(expected[status]);
      expect(read?.reason === null).toBe(expected[status] !== 'failed');
      // No final status: still processing (the money may have moved), held for review (review 1.4).
      expect(read?.needsReview).toBe(
        status === 'INITIATION_NO_FINAL_STATUS_AVAILABLE' ? NO_FINAL_STATUS_REVIEW : undefined,
      );
    }
    store().refunds.get(r.networkRefundId!)!.status = 'INITIATION_SOMETHING_NEW' as never;
    expect(
      (
        await bank().refunds!.getRefund({
          refundId: one.refundId,
          networkRefundId: r.networkRefundId,
          onBehalfOfId: null,
        })
      )?.outcome,
    ).toBe('processing');
  });
});

describe('refId and description', () => {
  it('our refund id when it fits Token.io’s 18 characters, else a stable 18-character digest', () => {
    expect(tokenioRefundRefId('rf0123456789abcdef')).toBe('rf0123456789abcdef');
    const uuid = '0193a0c4-1234-7000-8000-0123456789ab';
    const ref = tokenioRefundRefId(uuid);
    expect(ref).toMatch(/^[a-z0-9]{18}$/);
    expect(tokenioRefundRefId(uuid)).toBe(ref);
    expect(tokenioRefundRefId('0193a0c4-1234-7000-8000-0123456789ac')).not.toBe(ref);
  });

  it('the description is cleaned to what banks keep: 18 characters for Faster Payments, 35 otherwise', () => {
    expect(refundDescription('Order #A-1042 / Café refund', 'FASTER_PAYMENTS')).toBe('Order A-1042 Cafe');
    expect(refundDescription('Order #A-1042 / Café refund', 'SEPA')).toBe('Order A-1042 Cafe refund');
    expect(refundDescription('***', 'SEPA')).toBe('Refund');
  });
});

describe('refund notifications', () => {
  it('a REFUND_STATUS_CHANGED body is a hint naming the refund; its status is never used', async () => {
    const body = JSON.stringify({
      eventType: 'REFUND_STATUS_CHANGED',
      refund: { id: 'rf:a:b', status: 'INITIATION_COMPLETED', initiation: { refId: 'r1' } },
    });
    const h = parseHint(body);
    expect(isHint(h) && h).toEqual({ paymentId: null, refId: 'r1', consentId: null, refundId: 'rf:a:b' });
  });

  it('the hint is read at Token.io and becomes a refund notification with the outcome read now', async () => {
    const { transferId } = await paid();
    const one = input(transferId, { amount: '1.53' });
    const r = await bank().refunds!.initiateRefund(one);
    store().setRefundStatus(r.networkRefundId!, 'INITIATION_REJECTED', 'Account closed at the bank');
    const n1 = await bank().refunds!.notificationFor(r.networkRefundId!, new Date());
    expect(n1).toMatchObject({
      kind: 'refund',
      refId: tokenioRefundRefId(one.refundId),
      transferId: r.networkRefundId,
      providerStatus: 'failed',
      reason: 'The bank rejected the refund',
    });
    expect(JSON.stringify(n1)).not.toContain('Account closed');
    expect(await bank().refunds!.notificationFor('rf:none:x', new Date())).toBeNull();
  });
});

describe('settings', () => {
  const base = {
    SVC_BANK_PROVIDER: 'tokenio',
    SVC_TOKENIO_API_URL: 'https://api.sandbox.token.io',
    SVC_TOKENIO_MEMBER_ID: 'm:abc:def',
    SVC_TOKENIO_API_KEY: 'key',
    SVC_TOKENIO_WEBHOOK_SECRET: 'a-long-random-path-segment',
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
  };

  it('SVC_TOKENIO_RETURN_REFUND_ACCOUNT: on in sandbox, off in production until Token.io grants the permission', () => {
    expect(tokenioSettings(loadConfig(base))!.refunds).toEqual({
      enabled: true,
      returnRefundAccount: true,
      consentText: DEFAULT_CONSENT_REFUND_TEXT,
      termsLead: DEFAULT_CONSENT_REFUND_TERMS_LEAD,
      privacyNoticeUrl: null,
      retentionDays: 180,
    });
    const prod = {
      ...PRODUCTION_ENV,
      ...base,
      SVC_TOKENIO_API_URL: 'http://127.0.0.1:4010',
      SVC_TOKENIO_ALLOW_STANDIN: 'true',
      SVC_TOKENIO_TERMS_URL: 'https://terms.example/tokenio',
    };
    expect(tokenioSettings(loadConfig(prod))!.refunds.returnRefundAccount).toBe(false);
    expect(
      tokenioSettings(
        loadConfig({
          ...prod,
          SVC_TOKENIO_RETURN_REFUND_ACCOUNT: 'true',
          SVC_PRIVACY_NOTICE_URL: 'https://acme.example/privacy',
        }),
      )!.refunds.returnRefundAccount,
    ).toBe(true);
    // The payer's account is personal data we control (GDPR): production shows our privacy notice.
    expect(problemsOf({ ...prod, SVC_TOKENIO_RETURN_REFUND_ACCOUNT: 'true' })).toEqual([
      expect.stringMatching(/^SVC_PRIVACY_NOTICE_URL is required in production/),
    ]);
  });

  it('SVC_TOKENIO_REFUNDS_ENABLED: its own setting, off in production, on in sandbox; off means no refunds at all', () => {
    const prod = {
      ...PRODUCTION_ENV,
      ...base,
      SVC_TOKENIO_API_URL: 'http://127.0.0.1:4010',
      SVC_TOKENIO_ALLOW_STANDIN: 'true',
      SVC_TOKENIO_TERMS_URL: 'https://terms.example/tokenio',
      SVC_PRIVACY_NOTICE_URL: 'https://acme.example/privacy',
    };
    // Independent of the refund account: asking for the account does not turn refunds on.
    const off = tokenioSettings(loadConfig({ ...prod, SVC_TOKENIO_RETURN_REFUND_ACCOUNT: 'true' }))!;
    expect(off.refunds).toMatchObject({ enabled: false, returnRefundAccount: true });
    expect(
      tokenioSettings(loadConfig({ ...prod, SVC_TOKENIO_REFUNDS_ENABLED: 'true' }))!.refunds.enabled,
    ).toBe(true);
    expect(problemsOf({ ...base, SVC_TOKENIO_REFUNDS_ENABLED: 'maybe' })).toEqual([
      'SVC_TOKENIO_REFUNDS_ENABLED must be true or false (got "maybe")',
    ]);
    const adapters = (c: typeof off) =>
      createTokenio(c, 'http://127.0.0.1:8000', { metrics: new Registry(), log: captureLogger('trace') });
    expect(adapters(off).bank.refunds).toBeUndefined();
    expect(adapters(tokenioSettings(loadConfig(base))!).bank.refunds).toBeDefined();
  });

  it('SVC_TOKENIO_CONSENT_REFUND_TEXT must name the beneficiary', () => {
    expect(problemsOf({ ...base, SVC_TOKENIO_CONSENT_REFUND_TEXT: 'We will ask your bank.' })).toEqual([
      'SVC_TOKENIO_CONSENT_REFUND_TEXT must name the beneficiary with {beneficiary}',
    ]);
    expect(
      problemsOf({
        ...base,
        SVC_TOKENIO_RETURN_REFUND_ACCOUNT: 'false',
        SVC_TOKENIO_CONSENT_REFUND_TEXT: 'We will ask your bank.',
      }),
    ).toEqual([]);
  });
});
