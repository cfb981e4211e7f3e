/**
 * Refunds on Token.io (docs/vendors/tokenio.md, "Refunds"): `POST /refunds` names the original
 * payment, our reference (`refId`), the amount, the rail and a description, on behalf of the
 * opco's Sub-TPP; Token.io sends the money back to the account the payer's bank shared at payment
 * time (`refundDetails.refundAccount`, asked with `returnRefundAccount`). The creation is sent once:
 * an earlier attempt is looked for by `refId` first, and an answer lost on the way is resolved by
 * the same look-up, never by a second POST (Token.io documents no de-duplication by refId). Before
 * any POST the payment's `refundDetails.remainingRefundAmount` is compared with what our own refunds
 * leave: less at Token.io means a refund we do not know of (one not yet listed by refId), so nothing
 * is sent and the refund is held for review (RefundNeedsReviewError).
 * Statuses are read (GET /refunds/{id}, else by refId); notifications are only hints.
 */
import { createHash } from 'node:crypto';
import { compare, isDecimal, sub } from '../../../platform/decimal';
import {
  type BankNotification,
  BankProviderError,
  BankRefusedError,
  type RefundAccount,
  type RefundInput,
  RefundNeedsReviewError,
  type RefundNetwork,
  type RefundOutcome,
  type RefundRead,
} from '../port';
import type { TokenioClient, TokenioPayment, TokenioRefund, TokenioRefundDetails } from './client';

/** The rails a Token.io refund can take (reference `RefundInitiation.localInstrument`). */
export const REFUND_INSTRUMENTS = ['SEPA', 'SEPA_INSTANT', 'FASTER_PAYMENTS'] as const;

/**
 * Reference `StatusRefund`, each with what it means for us. COMPLETED: "the refund initiation is
 * successful" (not a settlement guarantee, as for payments): the money left, `succeeded`.
 * REJECTED (by the bank) and FAILED (Token.io could not create it at the bank) are final and moved
 * nothing: `failed`. NO_FINAL_STATUS_AVAILABLE is final at Token.io but "doesn't indicate success
 * or failure": the money may have moved, so the refund stays `processing` (it keeps counting
 * against the refundable amount; nobody can refund the same money twice) until someone confirms
 * it with the bank. PENDING and PROCESSING are on their way; anything undocumented is too.
 */
export const REFUND_STATUS_MAP: Readonly<Record<string, RefundOutcome>> = {
  INITIATION_PENDING: 'processing',
  INITIATION_PROCESSING: 'processing',
  INITIATION_COMPLETED: 'succeeded',
  INITIATION_REJECTED: 'failed',
  INITIATION_FAILED: 'failed',
  INITIATION_NO_FINAL_STATUS_AVAILABLE: 'processing',
};

/** Our sentence for a failed refund (Token.io's `statusReasonInformation` may quote the bank: logs only). */
const FAILURE_REASONS: Readonly<Record<string, string>> = {
  INITIATION_REJECTED: 'The bank rejected the refund',
  INITIATION_FAILED: 'Token.io could not send the refund to the bank (the bank was unavailable)',
};

export function refundOutcomeOf(status: string): RefundOutcome {
  return REFUND_STATUS_MAP[status] ?? 'processing';
}

/**
 * NO_FINAL_STATUS_AVAILABLE: "a final status, but it doesn't indicate success or failure. Please
 * contact the bank" (reference `StatusRefund`). Token.io will not move it again, so reading it
 * again would never settle it: someone must confirm with the bank.
 */
export const NO_FINAL_STATUS_REVIEW =
  'Token.io has no final status from the bank for this refund: the money may have been sent. Check with the bank before refunding again.';

export function refundReadOf(r: TokenioRefund): RefundRead {
  const outcome = refundOutcomeOf(r.status);
  return {
    networkRefundId: r.id,
    outcome,
    providerStatus: r.status.slice(0, 64),
    reason: outcome === 'failed' ? (FAILURE_REASONS[r.status] ?? 'The refund failed at the bank') : null,
    ...(r.status === 'INITIATION_NO_FINAL_STATUS_AVAILABLE' ? { needsReview: NO_FINAL_STATUS_REVIEW } : {}),
  };
}

/** Token.io's refId rule: letters, digits and '-', at most 18 characters (reference `refId`). */
const REF_ID_RULE = /^[A-Za-z0-9-]{1,18}$/;

/**
 * The `refId` sent for our refund: the refund id itself when it fits Token.io's rule, else a stable
 * 18-character digest of it (a UUID is 36 characters). The same refund always gives the same refId,
 * which is what the look-up after a lost answer relies on.
 */
export function tokenioRefundRefId(refundId: string): string {
  if (REF_ID_RULE.test(refundId)) return refundId;
  const digest = BigInt(`0x${createHash('sha256').update(refundId).digest('hex')}`);
  return `r${digest.toString(36).slice(0, 17).padStart(17, '0')}`;
}

/**
 * The refund's description: the merchant's reason cleaned to letters, digits, '-' and spaces (the
 * characters Token.io recommends for references), at most 18 characters for Faster Payments and 35
 * otherwise (the reference's limits for a payment's remittance; none is given for refunds).
 */
export function refundDescription(text: string | null, instrument: string): string {
  const max = instrument === 'FASTER_PAYMENTS' ? 18 : 35;
  const clean = (text ?? '')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9 -]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
  return clean || 'Refund';
}

/** The payer's account from a payment's `refundDetails`, in the port's shape; null when absent. */
export function refundAccountOf(d: TokenioRefundDetails | undefined): RefundAccount | null {
  const a = d?.refundAccount;
  if (!a || !(a.iban || (a.sortCode && a.accountNumber))) return null;
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v.slice(0, 140) : null);
  return {
    name: str(a.name),
    iban: str(a.iban),
    bic: str(a.bic),
    sortCode: str(a.sortCode),
    accountNumber: str(a.accountNumber),
  };
}

const MANUAL = 'Refund it by bank transfer to the payer instead.';

/**
 * The payment statuses a refund may start from (reference `PaymentStatus`): INITIATION_COMPLETED
 * (the bank accepted the payment) and SETTLEMENT_COMPLETED (it reached the payee's account). Not
 * SETTLEMENT_IN_PROGRESS ("waiting for the payment to reach the payee bank") nor
 * SETTLEMENT_INCOMPLETE ("reconciliation has failed"): the money is not known to be with the opco.
 */
export const REFUNDABLE_PAYMENT_STATUSES: readonly string[] = [
  'INITIATION_COMPLETED',
  'SETTLEMENT_COMPLETED',
];

/** Why Token.io cannot refund this payment (a sentence for the merchant), or null when it can. */
export function paymentRefundProblem(p: TokenioPayment, currency: string): string | null {
  const instrument = String(p.initiation.localInstrument ?? '');
  if (p.status === 'SETTLEMENT_IN_PROGRESS')
    return 'Token.io has not yet seen this payment reach the merchant’s account; try the refund again once it has.';
  if (p.status === 'SETTLEMENT_INCOMPLETE')
    return `Token.io could not confirm that this payment reached the merchant’s account (its reconciliation failed), so it cannot refund it. ${MANUAL}`;
  if (!REFUNDABLE_PAYMENT_STATUSES.includes(p.status))
    return `Token.io has not completed this payment, so it cannot refund it. ${MANUAL}`;
  if (!(REFUND_INSTRUMENTS as readonly string[]).includes(instrument))
    return `Token.io refunds only go by SEPA, SEPA Instant or Faster Payments; this ${currency} payment went by another rail. ${MANUAL}`;
  if (!refundAccountOf(p.refundDetails))
    return `The payer's bank did not share the payer's account with Token.io, so Token.io cannot send a refund for this payment. ${MANUAL}`;
  if (p.refundDetails?.paymentRefundStatus === 'FULL')
    return 'Token.io reports this payment as already refunded in full.';
  return null;
}

/**
 * Refuses to send when Token.io shows less left to refund than our own refunds leave
 * (`remainingRefundAmount`: "the payment amount minus the total amount of non-failed refunds",
 * reference `RefundDetails`): a refund of this payment exists that we do not know of, typically an
 * earlier attempt of this very refund that reached Token.io but is not listed by refId yet. Sending
 * again could pay twice. Decimal strings only.
 */
export function checkRemaining(p: TokenioPayment, input: RefundInput): void {
  if (input.alreadyRefunded === undefined) return;
  const amount = p.initiation.amount as { value?: unknown; currency?: unknown } | undefined;
  const remaining = p.refundDetails?.remainingRefundAmount;
  const review = (why: string) =>
    new RefundNeedsReviewError(
      `Token.io shows ${why}, so the refund was not sent: check this payment's refunds at Token.io before refunding again.`,
    );
  if (
    !remaining ||
    typeof amount?.value !== 'string' ||
    !isDecimal(amount.value) ||
    !isDecimal(remaining.value) ||
    !isDecimal(input.alreadyRefunded) ||
    remaining.currency !== input.currency
  )
    throw review('no amount left to refund that we can compare with our refunds');
  const expected = sub(amount.value, input.alreadyRefunded);
  if (compare(remaining.value, expected) < 0)
    throw review(
      'less left to refund on this payment than our own refunds leave (a refund we do not know of)',
    );
}

/** Unknown outcome of the creation: look it up; rethrow when it does not exist. */
async function orFound<T>(create: () => Promise<T>, find: () => Promise<T | null>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if (err instanceof BankRefusedError || !(err instanceof BankProviderError)) throw err;
    const found = await find().catch((e) => {
      if (e instanceof RefundNeedsReviewError) throw e;
      return null;
    });
    if (!found) throw err;
    return found;
  }
}

export class TokenioRefunds implements RefundNetwork {
  constructor(private readonly client: TokenioClient) {}

  /** Reads the paid payment at Token.io: its rail, state and whether the bank shared a refund account. */
  async refundProblem(payment: {
    transactionId: string;
    transferId: string | null;
    currency: string;
  }): Promise<string | null> {
    if (!payment.transferId) return `This payment has no Token.io payment to refund. ${MANUAL}`;
    const p = await this.client.getPayment(payment.transferId);
    if (!p) return `Token.io does not know this payment, so it cannot refund it. ${MANUAL}`;
    return paymentRefundProblem(p, payment.currency);
  }

  async initiateRefund(input: RefundInput): Promise<RefundRead> {
    const subTppId = input.payee.subTppId;
    if (!subTppId) throw new BankRefusedError('The opco has no Sub-TPP id at the payment network');
    const refId = tokenioRefundRefId(input.refundId);
    // An earlier attempt (a retry after an unknown outcome) is found first: never a second POST.
    const earlier = await this.client.findRefundByRefId(refId, subTppId);
    if (earlier) return refundReadOf(earlier);
    const original = await this.client.getPayment(input.originalTransferId);
    if (!original) throw new BankRefusedError('Token.io does not know the payment to refund');
    const problem = paymentRefundProblem(original, input.currency);
    if (problem) throw new BankRefusedError(problem);
    // An earlier attempt may have reached Token.io without being listed by refId yet: never a second POST.
    checkRemaining(original, input);
    const localInstrument = String(original.initiation.localInstrument);
    const initiation = {
      refId,
      originalPaymentId: input.originalTransferId,
      amount: { value: input.amount, currency: input.currency },
      localInstrument,
      description: refundDescription(input.description, localInstrument),
      onBehalfOfId: subTppId,
    };
    const r = await orFound(
      () => this.client.initiateRefund(initiation),
      () => this.client.findRefundByRefId(refId, subTppId),
    );
    return refundReadOf(r);
  }

  /**
   * What a refund hint (a notification naming a Token.io refund) amounts to once the refund is read:
   * the refund notification the feature applies (`ref_id` the refId Token.io holds, `transfer_id`
   * Token.io's refund id, `provider_status` the outcome read now); null when Token.io has no such refund.
   */
  async notificationFor(networkRefundId: string, now: Date): Promise<BankNotification | null> {
    const r = await this.client.getRefund(networkRefundId);
    if (!r) return null;
    const read = refundReadOf(r);
    return {
      kind: 'refund',
      eventId: `tokenio:${r.id}:${r.status}:${r.updatedDateTime}`.slice(0, 200),
      refId: r.initiation?.refId ?? '',
      transferId: r.id,
      providerStatus: read.outcome,
      occurredAt: Number.isNaN(Date.parse(r.updatedDateTime)) ? now : new Date(r.updatedDateTime),
      reason: read.reason,
    };
  }

  async getRefund(ref: {
    refundId: string;
    networkRefundId: string | null;
    onBehalfOfId: string | null;
  }): Promise<RefundRead | null> {
    const r = ref.networkRefundId
      ? await this.client.getRefund(ref.networkRefundId)
      : await this.client.findRefundByRefId(tokenioRefundRefId(ref.refundId), ref.onBehalfOfId);
    return r ? refundReadOf(r) : null;
  }
}
