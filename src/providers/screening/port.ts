/**
 * The screening provider adapter (docs/guides/screening.md): wallet risk and the chain observer used
 * by Satoshi tests. Sanctions name screening has its own port (src/providers/sanctions). The screening module talks to a vendor only through this interface and only in
 * normalized terms (risk fields of the spec; vendor names and raw codes never leave the adapter).
 * Calls are made outside database transactions. Results that are not answered at once arrive later
 * as signed notifications on POST /providers/screening/notifications.
 */
import type { Db } from '../../db/client';
import type { Cluster, Exposure } from '../../db/schema/screening';
import type { Clock } from '../../shared/clock';

export const RISK_LEVELS = ['unknown', 'low', 'medium', 'high', 'severe'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const RISK_CATEGORIES = [
  'sanctions',
  'terrorist_financing',
  'darknet_market',
  'ransomware',
  'scam',
  'stolen_funds',
  'mixer',
  'gambling',
  'unlicensed_exchange',
  'exchange',
  'defi',
  'p2p_exchange',
  'atm',
  'other',
] as const;
export type RiskCategory = (typeof RISK_CATEGORIES)[number];

export interface WalletRisk {
  risk_level: RiskLevel;
  risk_score: number;
  sanctions_hit: boolean;
  categories: RiskCategory[];
  exposures: Exposure[];
  cluster: Cluster | null;
  risk_reasons: string[];
}

/**
 * Why a polled provider has no answer yet (see `ScreeningProvider.polled`): `rate_limited` (the
 * vendor's 429 or quota: not a failure, asked again after `afterMs`), `not_ready` (the vendor answered
 * but its assessment is not finished: not a failure either) or `unavailable` (5xx, timeout, network,
 * breaker open: counted against `polled.maxUnavailableAttempts`).
 */
export interface ScreenRetry {
  reason: 'rate_limited' | 'not_ready' | 'unavailable';
  /** The vendor's Retry-After when it sent one; otherwise the feature's backoff decides. */
  afterMs?: number;
}

export type ScreenOutcome =
  | { status: 'completed'; risk: WalletRisk }
  | { status: 'failed'; reason: string }
  | { status: 'pending'; retry?: ScreenRetry };

export interface ScreenRequest {
  /** The service's screening id; notifications name it as `reference`. */
  screeningId: string;
  /** The service's wallet id (the provider's subject). */
  walletId: string;
  chain: string;
  address: string;
  asset: string | null;
}

export interface DepositWatchRequest {
  /** The ownership request id; the deposit notification names it as `reference`. */
  requestId: string;
  chain: string;
  fromAddress: string;
  asset: string;
  amount: string;
  until: Date;
}

/** A verified inbound notification. */
export type ScreeningNotification =
  | {
      type: 'screening.result';
      eventId: string;
      reference: string;
      revision: number;
      outcome: Exclude<ScreenOutcome, { status: 'pending' }>;
    }
  | {
      type: 'deposit.observed';
      eventId: string;
      reference: string;
      revision: number;
      deposit: { from_address: string; to_address: string; amount: string; asset: string };
    };

export interface ScreeningAttachContext {
  db: Db;
  clock: Clock;
  /** Posts a signed notification through the service's own inbound route. */
  deliver: (
    rawBody: string,
    headers: Record<string, string>,
  ) => Promise<{ statusCode: number; body: string }>;
}

export class ScreeningProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScreeningProviderError';
  }
}

export const SCREENING_SIGNATURE_HEADER = 'X-Provider-Signature';

export interface ScreeningProvider {
  /** False for a deployment with no adapter: the service answers 503 and stores nothing. */
  readonly configured: boolean;
  attach?(ctx: ScreeningAttachContext): void;
  screenWallet(req: ScreenRequest): Promise<ScreenOutcome>;
  /** Asks the chain observer to report a deposit from `fromAddress`; returns where to send it. */
  watchDeposit(req: DepositWatchRequest): Promise<{ depositAddress: string }>;
  /** Checks the signature and parses the body; null when unsigned, badly signed, stale or malformed. */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): ScreeningNotification | null;
  /** Sandbox deployments only: what the simulator offers testers; absent on a real adapter. */
  readonly sandbox?: ScreeningSandbox;
  /**
   * A vendor that answers only when asked (no notifications): every pending screening gets a retry
   * timer in the transaction that records it, and the feature asks again until the answer is final
   * (429s never count; `unavailable` answers count up to `maxUnavailableAttempts`, then the
   * screening fails with `Screening provider error`). Absent: results arrive by notification.
   */
  readonly polled?: ScreeningPolling;
  /**
   * False when the provider has no chain observer: `satoshi_test` is not offered (default methods
   * leave it out; asking for it is 400) and `watchDeposit` is never called. Absent means true.
   */
  readonly observesDeposits?: boolean;
}

export interface ScreeningPolling {
  /** Unavailable answers (5xx, timeouts, breaker open) before the screening fails. */
  maxUnavailableAttempts: number;
  /** Seconds before each retry after an unavailable answer or a 429 without Retry-After; the last repeats. */
  backoffSeconds: readonly number[];
  /** Longest Retry-After honoured; a longer one waits this long (a quota reset is asked again then). */
  maxRetryAfterSeconds: number;
  /**
   * Longest a screening may stay pending, whatever the reason (429s and unfinished answers are not
   * counted as failures, so this is what bounds them): past it the screening fails with
   * `Screening provider error`. Absent: no limit besides `maxUnavailableAttempts`.
   */
  maxPendingSeconds?: number;
}

/** The sandbox simulator's hooks (a capability: features call `provider.sandbox?.…`, never a class check). */
export interface ScreeningSandbox {
  /** The pending screening gets this result, through the signed notification route. */
  simulateScreening(
    screeningId: string,
    outcome: Exclude<ScreenOutcome, { status: 'pending' }>,
  ): Promise<void>;
  /** The chain observer saw a deposit (the proof page's "I sent it", or the simulate endpoint). */
  simulateDeposit(
    requestId: string,
    deposit: { from_address: string; to_address: string; amount: string; asset: string },
  ): Promise<void>;
  /**
   * Posts a notification the simulator scheduled earlier, now (its delivery timer's handler,
   * src/providers/sandbox-delivery.timers.ts); throws when the route refuses it.
   */
  deliverScheduled(body: Record<string, unknown>): Promise<void>;
}
