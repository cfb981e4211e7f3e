/**
 * The payment network adapter. The payments module talks to a bank network only through this
 * interface; the sandbox bank simulator is the first implementation, a real network the next.
 * Calls are made outside database transactions.
 */
import type { Clock } from '../../shared/clock';
import type { InboundCapability } from '../capabilities';

export interface BankChoice {
  id: string;
  name: string;
  description: string;
  /**
   * The currencies this bank can take a payment in over the network (upper-case ISO 4217 codes);
   * absent when the network does not say (any currency). See `bankTakes`.
   */
  currencies?: readonly string[];
  /**
   * A payment at this bank asks it for the payer's account (Token.io `returnRefundAccount`): the
   * page shows the consent's `refundAccount` variant when this bank is chosen.
   */
  asksRefundAccount?: boolean;
}

/** Can `bank` take a payment in `currency`? */
export function bankTakes(bank: BankChoice, currency: string): boolean {
  return !bank.currencies || bank.currencies.includes(currency);
}

/** Which banks a page offers: a name search, a country, and what the bank must support. */
export interface BankFilter {
  search?: string;
  country?: string;
  /** `mandate`: banks that support VRP mandates; default `payment`. */
  purpose?: 'payment' | 'mandate';
}

/** Who receives the money: the opco's settlement account and its Sub-TPP id on the network. */
export interface Payee {
  name: string;
  iban: string;
  bic: string | null;
  subTppId: string | null;
}

export interface CreateSessionInput {
  transactionId: string;
  amount: string;
  currency: string;
  merchantName: string;
  /** The session may not outlive the payment link. */
  expiresAt: Date;
}

export interface BankSession {
  refId: string;
  transferId: string | null;
  /** Latest detail status known to the network (its own vocabulary; normalized by the machine). */
  providerStatus: string;
  /** The authorization window of this session has lapsed: the payer must restart with a new session. */
  expired: boolean;
  /** Where the payer authorizes this session, once a bank is picked. */
  authorizationUrl: string | null;
  updatedAt: Date;
  /** The network's trace id of an unsuccessful outcome (Token.io `errorInfo.tokenTraceId`), kept on the timeline. */
  traceId?: string | null;
  /**
   * The payer's account as the bank shared it for refunds (Token.io `refundDetails.refundAccount`,
   * asked with `returnRefundAccount`); absent when the network did not return one. Personal data:
   * stored encrypted, never logged, never in webhooks or API responses.
   */
  refundAccount?: RefundAccount;
}

/** The account a refund goes back to: an IBAN (SEPA) or a UK sort code and account number. */
export interface RefundAccount {
  name: string | null;
  iban: string | null;
  bic: string | null;
  sortCode: string | null;
  accountNumber: string | null;
}

export interface StartAuthorizationInput {
  refId: string;
  bankId: string;
  /** Where the bank sends the payer afterwards (the hosted checkout's return page). */
  returnUrl: string;
  /** The payment itself, for networks that create it only now (the sandbox recorded it at createSession). */
  payment: {
    amount: string;
    currency: string;
    payee: Payee;
    /** The merchant's own reference (the payment's description), for networks with a second remittance field. */
    merchantReference?: string | null;
  };
  /**
   * The payer at our checkout, for the network's risk checks: the IP address of the payer's request
   * and a stable pseudonymous id (never personal data in clear). Absent when not known.
   */
  payer?: { ipAddress: string | null; psuId: string | null };
}

export interface StartedAuthorization {
  transferId: string;
  /** Where the payer authorizes; null while the bank has not answered yet (the checkout shows "waiting"). */
  authorizationUrl: string | null;
  /** The network's status at that moment, when the network reports it in the answer (not by notification). */
  providerStatus?: string;
}

/** Which session to read: the network's payment id when known, else our reference. */
export interface SessionRef {
  refId: string;
  transferId: string | null;
  /** The payee's Sub-TPP id, for networks that look a payment up by reference on its behalf (Token.io). */
  onBehalfOfId?: string | null;
}

/** A verified inbound notification of the network. */
export interface BankNotification {
  eventId: string;
  refId: string;
  transferId: string | null;
  /** Raw upstream code: normalized by the status machine, never stored raw. */
  providerStatus: string;
  occurredAt: Date;
  reason: string | null;
  /**
   * `mandate` for a VRP mandate's notification (ref_id is then the mandate_ref); `refund` for a
   * refund's: `refId` is then the reference the network holds for the refund (it may be a digest of
   * our refund id, not our id: Token.io's refId is at most 18 characters), `transferId` the
   * network's refund id (match it against the refund's network_refund_id first) and
   * `providerStatus` a RefundOutcome; `payment` otherwise.
   */
  kind: 'payment' | 'mandate' | 'refund';
}

/** A VRP mandate the payer is asked to authorize at a bank (limits as decimal strings). */
export interface CreateMandateInput {
  bankId: string;
  merchantName: string;
  currency: string;
  maxAmountPerPayment: string;
  /** At most `amount` per `period` (day, week, fortnight, month, half_year, year). */
  periodicLimit: { amount: string; period: string };
  payee: Payee;
  /** Where the bank sends the payer afterwards. */
  returnUrl: string;
  expiresAt: Date;
}

/** A payment under an authorized mandate, no payer present; the outcome arrives as notifications. */
export interface MandatePaymentInput {
  refId: string;
  mandateRef: string;
  amount: string;
  currency: string;
  attemptNumber: number;
  payee: Payee;
  /**
   * An earlier launch of this payment may have reached the network (crash, lease expiry or error after
   * the send): when the look-up by refId finds nothing, the payment is not sent again but reported
   * as BankOutcomeUnknownError (held for review).
   */
  sentBefore?: boolean;
}

/** Mandate notification codes (provider_status of a `mandate` notification). */
export const MANDATE_CODES = [
  'mandate_authorized',
  'mandate_rejected',
  'mandate_expired',
  'mandate_revoked',
] as const;
export type MandateCode = (typeof MANDATE_CODES)[number];

/** VRP mandates: the part of the network recurring payments use. */
export interface MandateNetwork {
  createMandate(input: CreateMandateInput): Promise<{ mandateRef: string; authorizationUrl: string }>;
  /** The merchant revokes the mandate (cancel, completion); idempotent. */
  revokeMandate(mandateRef: string): Promise<void>;
  /**
   * Idempotent per refId: a second call for the same session does nothing. Networks that answer
   * with the payment return its id and status (the caller records them); the sandbox reports by notification.
   */
  initiateMandatePayment(
    input: MandatePaymentInput,
  ): Promise<{ transferId: string; providerStatus: string } | undefined>;
  /** The mandate's status code now (null while the payer has not decided); for polling networks. */
  readMandate?(mandateRef: string): Promise<MandateCode | null>;
  /** Sandbox only: make the network report a mandate code (same notification path as the real one). */
  simulateMandate?(mandateRef: string, code: MandateCode): Promise<void>;
  /** Sandbox only: settles the mandate payments whose settlement time has come. */
  settleDueMandatePayments?(): Promise<number>;
}

/** A refund of a paid payment, sent back to the payer's account by the network. */
export interface RefundInput {
  /** Our refund id: the network's idempotency reference (Token.io `refId`). One network refund per id. */
  refundId: string;
  transactionId: string;
  /** The network's id of the paid payment (the transaction's transfer_id). */
  originalTransferId: string;
  /** Decimal string in major units, at most the refundable amount (checked by the caller). */
  amount: string;
  currency: string;
  /** Remittance text the payer sees (the merchant's reason or reference); may be trimmed by the network. */
  description: string | null;
  /** The opco that was paid: the refund leaves its account, on behalf of its Sub-TPP. */
  payee: Payee;
  /**
   * Decimal string: the sum of this payment's other refunds that may have reached the network (sent
   * or under way, not failed). With it the network adapter checks, before it sends, that the network
   * shows no refund we do not know of (Token.io `refundDetails.remainingRefundAmount` lower than the
   * payment amount minus this) and throws RefundNeedsReviewError if it does. Absent: not checked.
   */
  alreadyRefunded?: string;
}

/** Outcome codes of a refund on the network, normalized by the adapter. */
export const REFUND_OUTCOMES = ['processing', 'succeeded', 'failed'] as const;
export type RefundOutcome = (typeof REFUND_OUTCOMES)[number];

/** What the network says of a refund now. */
export interface RefundRead {
  /** The network's id of the refund, once it has one. */
  networkRefundId: string | null;
  outcome: RefundOutcome;
  /** Raw upstream status, for logs and the timeline (never shown to payers). */
  providerStatus: string;
  /** Why it failed, a sentence safe to show the merchant; null unless `failed`. */
  reason: string | null;
  /**
   * Set (a sentence safe to show the merchant) when the network gives a final answer that says
   * neither success nor failure (Token.io INITIATION_NO_FINAL_STATUS_AVAILABLE): the outcome stays
   * `processing` (the money may have moved) and the refund must be held for manual review.
   */
  needsReview?: string | null;
}

/** Refunds: the part of the network that sends a paid payment's money back. */
export interface RefundNetwork {
  /**
   * Why this paid payment cannot be refunded over the network (a sentence safe to show the
   * merchant, e.g. the bank returned no refund account), or null when it can.
   */
  refundProblem(payment: {
    transactionId: string;
    transferId: string | null;
    currency: string;
  }): Promise<string | null>;
  /**
   * Sends the refund. Idempotent per `refundId`: when an earlier answer was lost the network's
   * refund is found by that reference, never sent twice. Throws BankRefusedError when the network
   * refuses it as it is (the refund fails with that reason), RefundNeedsReviewError when the
   * network shows a refund we do not know of (hold for manual review, never retried),
   * BankProviderError when it cannot be reached (retried later).
   */
  initiateRefund(input: RefundInput): Promise<RefundRead>;
  /**
   * Reads a refund by the network's id, else by our reference; null when the network has none.
   * RefundNeedsReviewError when the reference names several refunds at the network.
   */
  getRefund(ref: {
    refundId: string;
    networkRefundId: string | null;
    onBehalfOfId: string | null;
  }): Promise<RefundRead | null>;
  /**
   * For networks whose notifications are hints: the refund's notification as read now from the
   * network (its id `networkRefundId`), for the refunds feature to apply; null when unknown there.
   */
  notificationFor?(networkRefundId: string, now: Date): Promise<BankNotification | null>;
  /** Sandbox only: make the network report an outcome for a refund (same path as a real notification). */
  simulateRefund?(refundId: string, outcome: RefundOutcome): Promise<void>;
}

/** The network could not be reached or failed: the request may be retried later (503). */
export class BankProviderError extends Error {
  /** The network's trace id of the failed call (Token.io `tokenTraceId`), for logs and the timeline; never a secret. */
  readonly traceId: string | null;
  /** The network certainly did not act on the request (open breaker, 429, 401/403): a resend is safe. */
  notSent = false;
  constructor(message: string, options?: { cause?: unknown; traceId?: string | null }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BankProviderError';
    this.traceId = options?.traceId ?? null;
  }
}

/** The network refused this request as it is (a 4xx): retrying the same will not help. `reason` is ours, safe to show. */
export class BankRefusedError extends BankProviderError {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown; traceId?: string | null },
  ) {
    super(reason, options);
    this.name = 'BankRefusedError';
  }
}

/**
 * A creation whose outcome is unknown (its answer was lost: a timeout, a 5xx, a dropped connection)
 * and that a look-up by our reference does not find. The network may still hold it (its list may
 * not be read-after-write), and it does not document that a second creation with the same
 * reference is refused: sending again could pay twice, so the caller holds the payment for manual
 * review and keeps reading it by reference instead.
 */
export class BankOutcomeUnknownError extends BankProviderError {
  constructor(message: string, options?: { cause?: unknown; traceId?: string | null }) {
    super(message, options);
    this.name = 'BankOutcomeUnknownError';
  }
}

/**
 * The network shows something that does not add up with what we sent (a refund we do not know of,
 * or several under one reference): sending now could pay the payer twice. Not retried; the refund
 * is held for manual review. `reason` is ours, safe to show the merchant.
 */
export class RefundNeedsReviewError extends BankProviderError {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'RefundNeedsReviewError';
  }
}

/**
 * What the payer must be shown and agree to on our page before the bank (a network acting under
 * its own licence, e.g. Token.io's for an API-only integration): the consent sentence and the
 * link to the network's terms. The page shows it with the amount, the beneficiary and the reference.
 */
export interface ConsentNotice {
  /** The sentence, the beneficiary's name already in it. */
  text: string;
  termsUrl: string;
  /** The words before the Terms link, as the network prescribes them. */
  termsLead: string;
  termsLabel: string;
  /**
   * The variant for a payment that asks the bank for the payer's account (refunds): shown instead of
   * `text`/`termsLead` only when the chosen bank is asked (BankChoice `asksRefundAccount`), with a
   * link to the merchant-side privacy notice (GDPR: we are the data controller). Never for mandates.
   */
  refundAccount?: { text: string; termsLead: string; privacyNoticeUrl: string | null };
}

export interface BankProvider {
  readonly name: string;
  /** The notice for a payment (or mandate) to `beneficiary`; absent or null when the network collects consent itself. */
  consentNotice?(beneficiary: string, purpose?: 'payment' | 'mandate'): ConsentNotice | null;
  /** false: no network is configured (`SVC_BANK_PROVIDER=none`); payment creation answers 503 and writes nothing. */
  readonly available?: boolean;
  /** Banks the payer may choose (cached by networks that fetch them), each with the currencies it takes. */
  listBanks(filter?: BankFilter): Promise<BankChoice[]>;
  /**
   * Why the payee (the opco's settlement account) cannot receive a payment in `currency` over this
   * network (a sentence safe to show the merchant), or null. Absent: any account receives any currency.
   */
  payeeCurrencyProblem?(payee: Payee, currency: string): string | null;
  /** Opens a session; networks that create payments only at bank choice make no call here. */
  createSession(input: CreateSessionInput): Promise<{ refId: string }>;
  startAuthorization(input: StartAuthorizationInput): Promise<StartedAuthorization>;
  getSession(ref: SessionRef): Promise<BankSession | null>;
  /** Best effort: tells the network the payer or merchant abandoned the session. */
  cancelSession(refId: string): Promise<void>;
  /** Verifies the signature of an inbound notification; null when unsigned, stale or badly signed. */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): BankNotification | null;
  /** Sandbox only: make the network report `providerStatus` for a session (same path as a real notification). */
  simulate?(refId: string, providerStatus: string): Promise<void>;
  /** Wires what the adapter needs from the running service (database, clock, the HTTP notification route). */
  attach?(ctx: BankAttachContext): void;
  /** VRP mandates; absent when the network has none. */
  readonly mandates?: MandateNetwork;
  /** false: the network has mandates but this deployment has not enabled them (creation answers 403). */
  readonly mandatesEnabled?: boolean;
  /**
   * The inbound part, for networks whose notifications are not signed `BankNotification`s (they are
   * then hints: the generic notification route re-reads what they name). Absent: `verifyNotification`.
   */
  readonly inbound?: InboundCapability<BankNotification, BankHint>;
  /** Networks whose notifications can be missed: the generic network sweep reads due payments with this policy. */
  readonly reconcile?: BankReconcile;
  /** Days after a payment that the payer's sealed refund account is kept (absent: never asked for one). */
  readonly refundAccountRetentionDays?: number;
  /** Refunds; absent when the network cannot refund (the API then answers 422). */
  readonly refunds?: RefundNetwork;
}

/** What an unsigned notification names: the objects to read again from the network. */
export interface BankHint {
  /** The network's payment id. */
  paymentId: string | null;
  /** Our ref_id as the payment carries it, for a payment whose network id we never recorded. */
  refId: string | null;
  /** A mandate's (VRP consent's) id at the network. */
  consentId: string | null;
  /** A refund's id at the network (`refId` is then the refund's reference). */
  refundId?: string | null;
}

/**
 * The reconcile part of a network whose news can be lost: when and how often the generic network
 * sweep (payments feature) reads payments, mandates and Sub-TPPs again. The read itself is the
 * port's (`getSession`, `mandates.readMandate`, the Sub-TPP registry).
 */
export interface BankReconcile {
  /** How often the sweep runs. */
  pollMs: number;
  /** Payments: read once their last news is older than `afterSeconds`, then every `intervalSeconds`, doubling up to `maxIntervalSeconds`. */
  payments: { afterSeconds: number; intervalSeconds: number; maxIntervalSeconds: number };
  /** A payment that ended without a final status is still read every `intervalSeconds` for `days` days. */
  review: { intervalSeconds: number; days: number };
  /** Authorized mandates are all read again this often (a revocation at the bank is seen before the next charge). */
  consentRereadSeconds: number;
  /** Activated Sub-TPPs are all read again this often. */
  subTppRereadSeconds: number;
  /** How often a Sub-TPP under review at the network is read. */
  subTppPollSeconds: number;
  /** Once, at the sweep's first pass (retried on the next one when it throws): e.g. registering our notification URL. */
  start?(): Promise<void>;
}

export interface BankAttachContext {
  db: import('../../db/client').Db;
  /** The hot-path handle (named prepared statements on PostgreSQL). */
  database: import('../../db/client').Database;
  clock: Clock;
  /** POSTs a notification through the service's own HTTP route. */
  deliver(rawBody: string, headers: Record<string, string>): Promise<{ statusCode: number; body: string }>;
}

export const BANK_SIGNATURE_HEADER = 'x-bank-signature';
/** Notifications older (or newer) than this are rejected as replays. */
export const BANK_SIGNATURE_TOLERANCE_SECONDS = 300;
