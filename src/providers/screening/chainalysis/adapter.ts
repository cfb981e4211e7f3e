/**
 * The screening port over Chainalysis (docs/vendors/chainalysis.md). Chainalysis answers only when
 * asked (no notifications), so the adapter is *polled*: an answer that is not final yet comes back as
 * `pending` with a retry reason, and the screening feature asks again from its retry timer.
 *
 * Which answers are final:
 * - an assessment (200) whose `status` is absent or COMPLETE -> completed; a sanctions identification
 *   of the address or its cluster is a sanctions hit (severe); a Low rating with nothing behind it is
 *   `unknown`, score 0 (any other rating keeps its level);
 * - an assessment whose `status` is anything else (not finished yet) -> pending, `not_ready` (not
 *   counted; asked again from the retry timer);
 * - 404 even after registering the address (POST /v2/entities) -> pending, `unavailable` (counted):
 *   the assessment may simply not be ready yet, so it is asked again; a 404 that lasts past the limit
 *   fails the screening like an outage (never a final `unknown`);
 * - 400/422 (the vendor refuses the address) -> failed `Screening provider error`;
 * - 429 (rate limit or quota) -> pending, `rate_limited`: never counts as a failure; the screening
 *   fails with `Screening provider error` once pending for SVC_CHAINALYSIS_MAX_PENDING_SECONDS (as
 *   does one whose answers stay unfinished);
 * - 5xx, timeout, network, breaker open, a malformed answer, 401/403 (a key refused) -> pending,
 *   `unavailable` (counted; the feature fails the screening at SVC_CHAINALYSIS_MAX_UNAVAILABLE_ATTEMPTS).
 * Whenever the assessment is not obtained (outage, 429, unfinished answer, 404), the Sanctions API,
 * when configured as fallback, is asked meanwhile: a designation there is final (completed, severe,
 * sanctions hit); a clean answer, or none (its 403 throttle included), is not.
 *
 * `chainalysis-sanctions` (the Sanctions API alone): listed -> severe; not listed -> `unknown`, score 0,
 * with a reason saying only sanctions lists were checked (never low).
 *
 * Letter case at the Sanctions API: no document says whether it matches EVM addresses whatever
 * their case. We ask in lowercase; an EVM address not listed so (and with letters in it) is asked
 * once more in its EIP-55 spelling, and a listing on either spelling is a designation. The second
 * call is its own metrics operation (`sanctions.address_eip55`); when it does not answer, nothing is
 * concluded from the first (the fallback is "not answered"; sanctions-only asks again later).
 *
 * There is no chain observer: `observesDeposits` is false (no Satoshi test with this provider).
 */
import type { FastifyBaseLogger } from 'fastify';
import { UpstreamError } from '../../../platform/upstream';
import { type Chain, eip55, isEvm } from '../../../shared/chain-addresses';
import {
  type ScreeningNotification,
  type ScreeningPolling,
  type ScreeningProvider,
  ScreeningProviderError,
  type ScreenOutcome,
  type ScreenRequest,
} from '../port';
import { ChainalysisApiError, type ChainalysisRiskClient, type ChainalysisSanctionsClient } from './client';
import type { ChainalysisConfig } from './config';
import {
  type ChainalysisEntity,
  ChainalysisMalformedError,
  riskFromEntity,
  sanctionedRisk,
  sanctionsListed,
  sanctionsOnlyClean,
  vendorAddress,
} from './mapping';

/** The merchant-facing reason of a screening the vendor refused (the spec's message, verbatim). */
export const PROVIDER_ERROR = 'Screening provider error';

type NotYet = Extract<ScreenOutcome, { status: 'pending' }>;

const rateLimited = (afterMs?: number): NotYet => ({
  status: 'pending',
  retry: { reason: 'rate_limited', afterMs },
});
const notReady = (): NotYet => ({ status: 'pending', retry: { reason: 'not_ready' } });
const unavailable = (afterMs?: number): NotYet => ({
  status: 'pending',
  retry: { reason: 'unavailable', afterMs },
});

/** What an error of one call means for the screening: final failure, or ask again (and why). */
function classify(err: unknown): { final: true } | { final: false; outcome: NotYet } {
  if (err instanceof UpstreamError) {
    if (err.kind === 'rate_limited') return { final: false, outcome: rateLimited(err.retryAfterMs) };
    return { final: false, outcome: unavailable(err.kind === 'server' ? err.retryAfterMs : undefined) };
  }
  if (err instanceof ChainalysisMalformedError) return { final: false, outcome: unavailable() };
  if (err instanceof ChainalysisApiError) {
    // 401/403: a key refused (or the Sanctions API's throttle).
    if (err.status === 401 || err.status === 403) return { final: false, outcome: unavailable() };
    return { final: true };
  }
  return { final: false, outcome: unavailable() };
}

/** An assessment is final when its `status` is absent (older answers) or COMPLETE. */
function isComplete(doc: ChainalysisEntity): boolean {
  const status = doc && typeof doc === 'object' ? doc.status : undefined;
  return status === undefined || status === null || String(status).toUpperCase() === 'COMPLETE';
}

export class ChainalysisScreening implements ScreeningProvider {
  readonly configured = true;
  readonly observesDeposits = false;
  readonly polled: ScreeningPolling;

  constructor(
    private readonly risk: ChainalysisRiskClient | null,
    private readonly sanctions: ChainalysisSanctionsClient | null,
    config: ChainalysisConfig,
    private readonly log: FastifyBaseLogger,
  ) {
    this.polled = {
      maxUnavailableAttempts: config.maxUnavailableAttempts,
      backoffSeconds: config.retryBackoffSeconds,
      maxRetryAfterSeconds: config.maxRetryAfterSeconds,
      maxPendingSeconds: config.maxPendingSeconds,
    };
  }

  async screenWallet(req: ScreenRequest): Promise<ScreenOutcome> {
    const address = vendorAddress(req.chain, req.address);
    if (!this.risk) return this.sanctionsOnly(req, address);
    try {
      const doc = await this.assessment(address);
      if (!isComplete(doc)) return this.meanwhile(req, address, notReady());
      return { status: 'completed', risk: riskFromEntity(doc) };
    } catch (err) {
      // A 404 even after the registration: the assessment may not be ready yet (asked again, counted).
      const notFound = err instanceof ChainalysisApiError && err.status === 404;
      const c = notFound ? ({ final: false, outcome: unavailable() } as const) : classify(err);
      this.notObtained(req, err, c.final, 'chainalysis risk assessment not obtained');
      if (c.final) return { status: 'failed', reason: PROVIDER_ERROR };
      return this.meanwhile(req, address, c.outcome);
    }
  }

  /**
   * No assessment yet (outage, 429, unfinished answer): the Sanctions API is asked meanwhile, as it
   * has its own key and quota and a designation cannot wait. Listed is final; anything else is not.
   */
  private async meanwhile(req: ScreenRequest, address: string, notYet: NotYet): Promise<ScreenOutcome> {
    if (this.sanctions && (await this.fallbackListed(req, address)))
      return { status: 'completed', risk: sanctionedRisk() };
    return notYet;
  }

  /** GET the assessment; an account that still needs the registration gets it once (POST, then GET). */
  private async assessment(address: string) {
    const risk = this.risk!;
    try {
      return await risk.entity(address);
    } catch (err) {
      if (!(err instanceof ChainalysisApiError) || err.status !== 404) throw err;
      await risk.register(address);
      return risk.entity(address);
    }
  }

  /**
   * Is `address` listed at the Sanctions API: asked as sent; an EVM address not listed so is asked
   * once more in its EIP-55 spelling (skipped when that spelling is the same, no letters), in case
   * the list matches exact spellings. Throws when either call does not answer.
   */
  private async listedAnyCase(chain: string, address: string): Promise<boolean> {
    if (sanctionsListed(await this.sanctions!.address(address))) return true;
    if (!isEvm(chain as Chain)) return false;
    const checksummed = eip55(address);
    if (checksummed === address) return false;
    return sanctionsListed(await this.sanctions!.address(checksummed, 'sanctions.address_eip55'));
  }

  /** The fallback's verdict: true listed, false not listed or not answered (never final on its own). */
  private async fallbackListed(req: ScreenRequest, address: string): Promise<boolean> {
    try {
      return await this.listedAnyCase(req.chain, address);
    } catch (err) {
      this.notObtained(req, err, false, 'chainalysis sanctions fallback not obtained');
      return false;
    }
  }

  private async sanctionsOnly(req: ScreenRequest, address: string): Promise<ScreenOutcome> {
    try {
      const listed = await this.listedAnyCase(req.chain, address);
      return { status: 'completed', risk: listed ? sanctionedRisk() : sanctionsOnlyClean() };
    } catch (err) {
      const c = classify(err);
      this.notObtained(req, err, c.final, 'chainalysis sanctions screening not obtained');
      return c.final ? { status: 'failed', reason: PROVIDER_ERROR } : c.outcome;
    }
  }

  /** The error's message only (never a response body or header), with the screening id. */
  private notObtained(req: ScreenRequest, err: unknown, final: boolean, msg: string): void {
    this.log.warn(
      { screeningId: req.screeningId, err: err instanceof Error ? err.message : String(err), final },
      msg,
    );
  }

  async watchDeposit(): Promise<{ depositAddress: string }> {
    throw new ScreeningProviderError('Chainalysis does not observe deposits (no Satoshi test)');
  }

  /** Chainalysis sends no screening notifications: anything on the provider route is refused. */
  verifyNotification(): ScreeningNotification | null {
    return null;
  }
}
