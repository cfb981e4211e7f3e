/**
 * Contract of the Token.io adapter's Sub-TPP registry and VRP mandates against the stand-in, and of
 * its request authentication (API key, JWT).
 */
import { generateKeyPairSync } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BankOutcomeUnknownError,
  BankProviderError,
  BankRefusedError,
  type Payee,
} from '../../../src/providers/bank/port';
import { tokenioSettings } from '../../../src/providers/bank/tokenio/config';
import { periodicLimitFor } from '../../../src/providers/bank/tokenio/creditor';
import { createTokenio } from '../../../src/providers/bank/tokenio/index';
import { captureLogger } from '../../helpers/log-capture';
import { type AdapterWorld, activatedPayee, application, freshAdapters, startAdapterWorld } from './fixtures';

let w: AdapterWorld;
beforeAll(async () => {
  w = await startAdapterWorld();
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

describe('Sub-TPPs', () => {
  it('registers the opco with its settlement account; Token.io review decides (pending, then activated)', async () => {
    const app = application();
    const { registrationId } = await w.adapters.subTpp.register(app);
    const s = w.standin.control.store.subTpps.get(registrationId)!;
    expect(s).toMatchObject({
      name: app.name,
      domain: 'opco.example.com',
      status: 'AWAITING_APPROVAL',
      mccCode: '5732',
      merchant: {
        merchantJurisdiction: 'GB',
        legalEntityName: 'Opco Trading Ltd',
        companyRegistrationNumber: '12345678',
        primaryUseCase: 'PIS: eCommerce merchant payment',
        iban: 'GB33BUKB20201555555555',
        bic: 'BUKBGB22',
      },
    });
    expect(await w.adapters.subTpp.decide({ ...app, registrationId })).toEqual({ outcome: 'pending' });
    w.standin.control.decideSubTpp(registrationId, 'ACTIVATED');
    expect(await w.adapters.subTpp.decide({ ...app, registrationId })).toEqual({
      outcome: 'approved',
      subTppId: registrationId,
    });
  });

  it('registering again (a lost answer) adopts the earlier registration: no second Sub-TPP', async () => {
    const app = application();
    const first = await w.adapters.subTpp.register(app);
    const again = await w.adapters.subTpp.register(app);
    expect(again.registrationId).toBe(first.registrationId);
    expect([...w.standin.control.store.subTpps.values()].filter((s) => s.name === app.name)).toHaveLength(1);
  });

  it('a rejection carries Token.io’s reason in our words; an unregistered opco is pending', async () => {
    const app = application();
    const { registrationId } = await w.adapters.subTpp.register(app);
    w.standin.control.decideSubTpp(registrationId, 'REJECTED', 'Company registration could not be verified');
    expect(await w.adapters.subTpp.decide({ ...app, registrationId })).toEqual({
      outcome: 'rejected',
      reason: 'The payment network rejected the Sub-TPP: Company registration could not be verified',
    });
    expect(await w.adapters.subTpp.decide(app)).toEqual({ outcome: 'pending' });
  });

  it('Token.io down: the registration fails as unavailable (retried later), nothing half-made', async () => {
    const app = application();
    w.standin.control.fail('subtpps.create', { kind: 'status', status: 503 });
    await expect(w.adapters.subTpp.register(app)).rejects.toBeInstanceOf(BankProviderError);
    expect([...w.standin.control.store.subTpps.values()].some((s) => s.name === app.name)).toBe(false);
  });
});

describe('VRP mandates', () => {
  let payee: Payee;
  beforeAll(async () => {
    payee = await activatedPayee(w);
  });
  const mandate = (over: { currency?: string; period?: string } = {}) =>
    w.adapters.bank.mandates.createMandate({
      bankId: 'ob-modelo',
      merchantName: 'Opco',
      currency: over.currency ?? 'GBP',
      maxAmountPerPayment: '50.00',
      periodicLimit: { amount: '200.00', period: over.period ?? 'month' },
      payee,
      returnUrl: 'http://127.0.0.1:8000/checkout/mandate/tok/return',
      expiresAt: new Date(Date.now() + 3600_000),
    });

  it('a mandate is a VRP consent authorized at the bank page, then revoked', async () => {
    const { mandateRef, authorizationUrl } = await mandate();
    expect(authorizationUrl).toBe(`${w.standin.url}/bank/consents/${encodeURIComponent(mandateRef)}`);
    const c = w.standin.control.store.consents.get(mandateRef)!;
    expect(c.initiation).toMatchObject({
      scheme: 'OBL_SWEEPING',
      localInstrument: 'FASTER_PAYMENTS',
      onBehalfOfId: payee.subTppId,
      currency: 'GBP',
      maximumIndividualAmount: '50.00',
      periodicLimits: [{ maximumAmount: '200.00', periodType: 'MONTH', periodAlignment: 'CONSENT' }],
      creditor: { sortCode: '202015', accountNumber: '55555555' },
      // The settings' scheme and payment context (issue 36 point 9).
      risk: { paymentContextCode: 'TRANSFER_TO_SELF' },
    });
    expect(await w.adapters.bank.mandates.readMandate(mandateRef)).toBeNull();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    expect(await w.adapters.bank.mandates.readMandate(mandateRef)).toBe('mandate_authorized');
    await w.adapters.bank.mandates.revokeMandate(mandateRef);
    expect(await w.adapters.bank.mandates.readMandate(mandateRef)).toBe('mandate_revoked');
  });

  it('a revocation the bank has not completed (DELETE answers the consent still AUTHORIZED) is an error to try again, not done (issue 36 point 11)', async () => {
    const { mandateRef } = await mandate();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    w.standin.control.store.holdRevocations = true;
    try {
      const err = await w.adapters.bank.mandates.revokeMandate(mandateRef).catch((e) => e);
      expect(err).toBeInstanceOf(BankProviderError);
      expect(err).not.toBeInstanceOf(BankRefusedError);
    } finally {
      w.standin.control.store.holdRevocations = false;
    }
    await w.adapters.bank.mandates.revokeMandate(mandateRef);
    expect(await w.adapters.bank.mandates.readMandate(mandateRef)).toBe('mandate_revoked');
  });

  it('consent outcomes map to mandate codes: rejected, and FAILED (abandoned) as expired', async () => {
    const a = await mandate();
    w.standin.control.store.decideConsent(a.mandateRef, 'reject');
    expect(await w.adapters.bank.mandates.readMandate(a.mandateRef)).toBe('mandate_rejected');
    const b = await mandate();
    w.standin.control.store.decideConsent(b.mandateRef, 'abandon');
    expect(await w.adapters.bank.mandates.readMandate(b.mandateRef)).toBe('mandate_expired');
  });

  it('a run is a VRP payment under the consent, idempotent per ref_id', async () => {
    const { mandateRef } = await mandate();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    const input = {
      refId: 'vrprun000000000001',
      mandateRef,
      amount: '20.00',
      currency: 'GBP',
      attemptNumber: 1,
      payee,
    };
    const first = await w.adapters.bank.mandates.initiateMandatePayment(input);
    expect(first).toMatchObject({ providerStatus: 'completed' });
    const again = await w.adapters.bank.mandates.initiateMandatePayment(input);
    expect(again?.transferId).toBe(first?.transferId);
    expect(
      w.standin.control.store.listPayments({ type: 'VARIABLE_RECURRING_PAYMENT', refIds: [input.refId] }),
    ).toHaveLength(1);
    expect(w.standin.control.store.payments.get(first!.transferId)!.initiation).toMatchObject({
      vrpConsentId: mandateRef,
      onBehalfOfId: payee.subTppId,
      amount: { value: '20.00', currency: 'GBP' },
    });
    const above = await w.adapters.bank.mandates.initiateMandatePayment({
      ...input,
      refId: 'vrprun000000000002',
      amount: '60.00',
    });
    expect(above?.providerStatus).toBe('rejected');
  });

  it('an unknown outcome of the run (5xx after the effect) is resolved by ref_id', async () => {
    const { mandateRef } = await mandate();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    w.standin.control.fail('payments.initiate', { kind: 'status', status: 502, afterEffect: true });
    const r = await w.adapters.bank.mandates.initiateMandatePayment({
      refId: 'vrprun000000000003',
      mandateRef,
      amount: '10.00',
      currency: 'GBP',
      attemptNumber: 1,
      payee,
    });
    expect(r?.providerStatus).toBe('completed');
  });

  it('a lost answer the refId look-up cannot find (a lagging list) is never sent again: outcome unknown, one payment at Token.io (brief H2 point 6)', async () => {
    const { mandateRef } = await mandate();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    // Token.io makes the payment, the answer is lost, and its list does not show it yet.
    w.standin.control.store.listLagMs = 60_000;
    w.standin.control.fail('payments.initiate', { kind: 'status', status: 502, afterEffect: true });
    const input = {
      refId: 'vrprun000000000005',
      mandateRef,
      amount: '10.00',
      currency: 'GBP',
      attemptNumber: 1,
      payee,
    };
    const err = await w.adapters.bank.mandates.initiateMandatePayment(input).catch((e) => e);
    expect(err).toBeInstanceOf(BankOutcomeUnknownError);
    expect(err.traceId).toMatch(/^trace/);
    w.standin.control.store.listLagMs = 0;
    expect(
      w.standin.control.store.listPayments({ type: 'VARIABLE_RECURRING_PAYMENT', refIds: [input.refId] }),
    ).toHaveLength(1);
    // Throttled (429) before Token.io acted: a plain unavailability, tried again later.
    w.standin.control.fail('payments.initiate', { kind: 'status', status: 429, retryAfter: '120' });
    const throttled = await w.adapters.bank.mandates
      .initiateMandatePayment({ ...input, refId: 'vrprun000000000006' })
      .catch((e) => e);
    expect(throttled).toBeInstanceOf(BankProviderError);
    expect(throttled).not.toBeInstanceOf(BankOutcomeUnknownError);
  });

  it('a relaunch after an earlier send (crash, lease expiry) that the lagging list does not show is held, never sent again (review H8 point 2)', async () => {
    const { mandateRef } = await mandate();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    const input = {
      refId: 'vrprun000000000021',
      mandateRef,
      amount: '10.00',
      currency: 'GBP',
      attemptNumber: 1,
      payee,
    };
    // The first launch sends the payment; the process dies before it records the answer.
    w.standin.control.store.listLagMs = 60_000;
    await w.adapters.bank.mandates.initiateMandatePayment({ ...input, sentBefore: false });
    // The relaunch: the "sent" marker is set and Token.io's list does not show the payment yet.
    const err = await w.adapters.bank.mandates
      .initiateMandatePayment({ ...input, sentBefore: true })
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankOutcomeUnknownError);
    w.standin.control.store.listLagMs = 0;
    expect(
      w.standin.control.store.listPayments({ type: 'VARIABLE_RECURRING_PAYMENT', refIds: [input.refId] }),
    ).toHaveLength(1);
  });

  it('401/403 on the VRP payment: Token.io did nothing, a later try is safe (not held) (review H8 point 7)', async () => {
    const { mandateRef } = await mandate();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    for (const [i, status] of [401, 403].entries()) {
      const refId = `vrprun00000000003${i}`;
      w.standin.control.fail('payments.initiate', { kind: 'status', status });
      const err = await w.adapters.bank.mandates
        .initiateMandatePayment({
          refId,
          mandateRef,
          amount: '10.00',
          currency: 'GBP',
          attemptNumber: 1,
          payee,
        })
        .catch((e) => e);
      expect(err).toBeInstanceOf(BankProviderError);
      expect(err).not.toBeInstanceOf(BankOutcomeUnknownError);
      expect(err.notSent).toBe(true);
      expect(
        w.standin.control.store.listPayments({ type: 'VARIABLE_RECURRING_PAYMENT', refIds: [refId] }),
      ).toHaveLength(0);
    }
  });

  it('with VRP off (production default) no consent is asked for: refused in our words, nothing created', async () => {
    const off = createTokenio(
      { ...tokenioSettings(w.config)!, vrp: { ...tokenioSettings(w.config)!.vrp, enabled: false } },
      w.config.publicUrl,
      { metrics: new Registry(), log: captureLogger('trace') },
    );
    const before = w.standin.control.store.consents.size;
    const err = await off.bank.mandates
      .createMandate({
        bankId: 'ob-modelo',
        merchantName: 'Opco Trading Ltd',
        currency: 'GBP',
        maxAmountPerPayment: '50.00',
        periodicLimit: { amount: '200.00', period: 'month' },
        payee,
        returnUrl: 'http://127.0.0.1:8000/checkout/mandate/tok/return',
        expiresAt: new Date(Date.now() + 3600_000),
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankRefusedError);
    expect(err.reason).toMatch(/^Recurring payments by bank are not enabled on this deployment/);
    expect(w.standin.control.store.consents.size).toBe(before);
  });

  it('a failed look-up before a run leaves the run for a later try (unavailable, not refused), nothing created', async () => {
    const { mandateRef } = await mandate();
    w.standin.control.store.decideConsent(mandateRef, 'authorize');
    w.standin.control.fail('payments.list', { kind: 'status', status: 400 });
    const input = {
      refId: 'vrprun000000000004',
      mandateRef,
      amount: '10.00',
      currency: 'GBP',
      attemptNumber: 1,
      payee,
    };
    const err = await w.adapters.bank.mandates.initiateMandatePayment(input).catch((e) => e);
    expect(err).toBeInstanceOf(BankProviderError);
    expect(err).not.toBeInstanceOf(BankRefusedError);
    expect(
      w.standin.control.store.listPayments({ type: 'VARIABLE_RECURRING_PAYMENT', refIds: [input.refId] }),
    ).toHaveLength(0);
    // Later the look-up works (on behalf of the Sub-TPP) and the run is made once.
    expect(await w.adapters.bank.mandates.initiateMandatePayment(input)).toMatchObject({
      providerStatus: 'completed',
    });
  });

  it('a lost consent answer is found among the consents created since, on behalf of the Sub-TPP (no scan)', async () => {
    // Many consents of other Sub-TPPs and older ones: the look-up must not page through them.
    for (let i = 0; i < 450; i++)
      w.standin.control.store.createConsent({
        ...w.standin.control.store.consents.values().next().value!.initiation,
        refId: `other${String(i).padStart(13, '0')}`,
        onBehalfOfId: 'other-sub-tpp',
      });
    w.standin.control.fail('vrp.consents.create', { kind: 'status', status: 502, afterEffect: true });
    const reads = w.standin.control.store.consentListReads;
    const { mandateRef } = await mandate();
    expect(w.standin.control.store.consents.get(mandateRef)?.initiation.onBehalfOfId).toBe(payee.subTppId);
    expect(w.standin.control.store.consentListReads - reads).toBe(1);
  });

  it('VRP is GBP with a UK account only; periods never refuse what our own limits allow', async () => {
    await expect(mandate({ currency: 'EUR' })).rejects.toBeInstanceOf(BankRefusedError);
    expect(periodicLimitFor('fortnight', '100.00')).toEqual({ maximumAmount: '100.00', periodType: 'WEEK' });
    expect(periodicLimitFor('half_year', '100.05')).toEqual({ maximumAmount: '200.10', periodType: 'YEAR' });
    expect(periodicLimitFor('day', '5')).toEqual({ maximumAmount: '5', periodType: 'DAY' });
  });
});

describe('authentication', () => {
  it('an RS256 key (RSA, which Token.io enrols) signs requests the stand-in verifies (issue 36 point 13)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs = await startAdapterWorld(
      { apiKey: null, jwtKeys: { r1: publicKey } },
      {
        SVC_TOKENIO_API_KEY: '',
        SVC_TOKENIO_KEY_ID: 'r1',
        SVC_TOKENIO_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      },
    );
    try {
      expect((await rs.adapters.bank.listBanks()).length).toBeGreaterThan(0);
    } finally {
      await rs.standin.close();
    }
  });

  it('a JWT-signed client (Ed25519, detached JWS over the body) is accepted; a wrong key is not', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    const jwt = await startAdapterWorld(
      { apiKey: null, jwtKeys: { k1: publicKey } },
      {
        SVC_TOKENIO_API_KEY: '',
        SVC_TOKENIO_KEY_ID: 'k1',
        SVC_TOKENIO_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      },
    );
    try {
      expect((await jwt.adapters.bank.listBanks()).length).toBeGreaterThan(0);
      const { registrationId } = await jwt.adapters.subTpp.register(application());
      expect(registrationId).toMatch(/-/);
      jwt.standin.control.store.subTpps.clear();
      const wrong = await startAdapterWorld(
        { apiKey: null, jwtKeys: { k1: other.publicKey } },
        {
          SVC_TOKENIO_API_KEY: '',
          SVC_TOKENIO_KEY_ID: 'k1',
          SVC_TOKENIO_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        },
      );
      await expect(wrong.adapters.bank.listBanks()).rejects.toBeInstanceOf(BankProviderError);
      await wrong.standin.close();
    } finally {
      await jwt.standin.close();
    }
  });
});
