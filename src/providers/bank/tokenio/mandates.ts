/**
 * VRP mandates on Token.io: a mandate is a VRP consent (POST /vrp-consents, authorized by the payer
 * at the bank's page, DELETE to revoke); a run is a VRP payment (POST /v2/payments with
 * vrpConsentId). Creations are sent once and an unknown outcome is resolved by refId, so nothing is
 * created twice (docs/vendors/tokenio.md, point 3).
 */
import { UpstreamError } from '../../../platform/upstream';
import {
  BankOutcomeUnknownError,
  BankProviderError,
  BankRefusedError,
  type CreateMandateInput,
  type MandateCode,
  type MandateNetwork,
  type MandatePaymentInput,
} from '../port';
import type { TokenioClient, TokenioConsent, TokenioPayment } from './client';
import type { TokenioConfig } from './config';
import { periodicLimitFor, vrpCreditorFor } from './creditor';
import { mandateCodeOf, providerStatusOf } from './mapping';
import { newRefId } from './ref-id';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const LOOKUP_SKEW_MS = 10 * 60_000;

/** Why a mandate cannot be set up while SVC_TOKENIO_VRP_ENABLED is off (also the merchant's 403). */
export const VRP_DISABLED =
  'Recurring payments by bank are not enabled on this deployment: Token.io VRP is sweeping only (payments between the payer’s own accounts); paying a merchant needs commercial VRP agreed with Token.io and the banks first';

/** Unknown outcome of a creation: look it up; rethrow when it does not exist. */
async function orFound<T>(create: () => Promise<T>, find: () => Promise<T | null>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if (err instanceof BankRefusedError || !(err instanceof BankProviderError)) throw err;
    const found = await find().catch(() => null);
    if (!found) throw err;
    return found;
  }
}

/** Token.io answered 401/403 (our credentials refused): nothing was done with the request. */
function authRefused(err: BankProviderError): boolean {
  const c = err.cause as { authRefused?: unknown } | undefined;
  return typeof c === 'object' && c !== null && c.authRefused === true;
}

export class TokenioMandates implements MandateNetwork {
  constructor(
    private readonly client: TokenioClient,
    private readonly publicUrl: string,
    private readonly redirectWaitMs: number,
    private readonly vrp: TokenioConfig['vrp'],
  ) {}

  async createMandate(input: CreateMandateInput): Promise<{ mandateRef: string; authorizationUrl: string }> {
    if (!this.vrp.enabled) throw new BankRefusedError(VRP_DISABLED);
    if (!input.payee.subTppId)
      throw new BankRefusedError('The opco has no Sub-TPP id at the payment network');
    const refId = newRefId();
    const initiation = {
      bankId: input.bankId,
      refId,
      remittanceInformationPrimary: refId,
      onBehalfOfId: input.payee.subTppId,
      scheme: this.vrp.scheme,
      localInstrument: 'FASTER_PAYMENTS',
      creditor: vrpCreditorFor(input.payee, input.currency),
      currency: input.currency,
      maximumIndividualAmount: input.maxAmountPerPayment,
      periodicLimits: [
        {
          ...periodicLimitFor(input.periodicLimit.period, input.periodicLimit.amount),
          periodAlignment: 'CONSENT',
        },
      ],
      callbackUrl: input.returnUrl,
      callbackState: refId,
      ...(this.vrp.paymentContextCode ? { risk: { paymentContextCode: this.vrp.paymentContextCode } } : {}),
    };
    // Token.io's clock may differ from ours: the lookup window opens a few minutes early.
    const createdAfter = new Date(Date.now() - LOOKUP_SKEW_MS);
    let c = await orFound(
      () => this.client.createConsent(initiation),
      () => this.client.findConsentByRefId(refId, { onBehalfOfId: input.payee.subTppId, createdAfter }),
    );
    const deadline = Date.now() + this.redirectWaitMs;
    for (let wait = 100; c.status === 'PENDING' && Date.now() + wait <= deadline; wait *= 2) {
      await sleep(wait);
      c = (await this.client.getConsent(c.id).catch(() => null)) ?? c;
    }
    // Without a redirect URL yet, the payer waits on our mandate page, which reads the consent.
    return { mandateRef: c.id, authorizationUrl: c.authentication?.redirectUrl ?? input.returnUrl };
  }

  async revokeMandate(mandateRef: string): Promise<void> {
    await this.client.revokeConsent(mandateRef);
  }

  async initiateMandatePayment(
    input: MandatePaymentInput,
  ): Promise<{ transferId: string; providerStatus: string } | undefined> {
    if (!input.payee.subTppId)
      throw new BankRefusedError('The opco has no Sub-TPP id at the payment network');
    const onBehalfOf = input.payee.subTppId;
    // A look-up that fails says nothing about the payment: the run is tried again later, never
    // failed (a refusal here is ours to fix, not the payer's bank saying no).
    const existing = await this.client.findPaymentByRefId(input.refId, true, onBehalfOf).catch((err) => {
      throw new BankProviderError('Token.io VRP payment look-up failed; the run is tried again later', {
        cause: err,
      });
    });
    if (existing) return { transferId: existing.id, providerStatus: providerStatusOf(existing.status) };
    if (input.sentBefore)
      // An earlier launch may have sent it and Token.io's list may not show it yet (its list is not
      // documented as read-after-write): sending again could charge the payer twice.
      throw new BankOutcomeUnknownError(
        'Token.io VRP payment: an earlier launch may have sent it and it is not found by its refId; never sent again, held for review',
      );
    let p: TokenioPayment;
    try {
      p = await this.client.initiatePayment({
        refId: input.refId,
        remittanceInformationPrimary: input.refId,
        onBehalfOfId: input.payee.subTppId,
        vrpConsentId: input.mandateRef,
        amount: { value: input.amount, currency: input.currency },
        localInstrument: 'FASTER_PAYMENTS',
        creditor: vrpCreditorFor(input.payee, input.currency),
        callbackUrl: this.publicUrl,
        callbackState: input.refId,
        flowType: 'API_ONLY',
      });
    } catch (err) {
      if (err instanceof BankRefusedError || !(err instanceof BankProviderError)) throw err;
      // Not sent (open breaker) or refused as throttling (429): Token.io did nothing, a later try is safe.
      const kind = err.cause instanceof UpstreamError ? err.cause.kind : null;
      // 401/403: Token.io refused our credentials before acting on the payment: as safe to retry as a 429.
      if (kind === 'circuit_open' || kind === 'rate_limited' || authRefused(err)) {
        err.notSent = true;
        throw err;
      }
      const found = await this.client.findPaymentByRefId(input.refId, true, onBehalfOf).catch(() => null);
      if (found) return { transferId: found.id, providerStatus: providerStatusOf(found.status) };
      // The answer was lost and the look-up finds nothing: Token.io documents neither that its list
      // is read-after-write nor that a second POST with this refId is refused, so sending again could
      // charge the payer twice. The run is held for manual review and read by refId from now on
      // (docs/vendors/tokenio.md, point 22).
      throw new BankOutcomeUnknownError(
        'Token.io VRP payment: the answer was lost and the payment is not found by its refId; never sent again, held for review',
        { cause: err, traceId: err.traceId },
      );
    }
    return { transferId: p.id, providerStatus: providerStatusOf(p.status) };
  }

  async readMandate(mandateRef: string): Promise<MandateCode | null> {
    const c: TokenioConsent | null = await this.client.getConsent(mandateRef);
    if (!c) throw new BankProviderError('VRP consent not found at Token.io');
    return mandateCodeOf(c.status);
  }
}
