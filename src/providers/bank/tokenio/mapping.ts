/**
 * The one place Token.io's codes become ours (docs/vendors/tokenio.md, "Statuses"). Raw codes never
 * leave the adapter: anything not in these tables becomes `unknown`, which the status machine
 * records on the timeline without moving the payment.
 */
import type { MandateCode } from '../port';

const AWAITING_BANK = [
  'INITIATION_PENDING_REDIRECT_AUTH',
  'INITIATION_PENDING_REDIRECT_HP',
  'INITIATION_PENDING_REDIRECT_PBL',
  'INITIATION_PENDING_EMBEDDED_AUTH',
  'INITIATION_PENDING_DECOUPLED_AUTH',
];

export const PAYMENT_STATUS_MAP: Readonly<Record<string, string>> = {
  INITIATION_PENDING: 'initiated',
  ...Object.fromEntries(
    AWAITING_BANK.flatMap((s) => [
      [s, 'awaiting_bank_authorization'],
      [`${s}_VERIFICATION`, 'awaiting_bank_authorization'],
    ]),
  ),
  INITIATION_PENDING_REDEMPTION: 'awaiting_redemption',
  INITIATION_PENDING_REDEMPTION_VERIFICATION: 'awaiting_redemption',
  INITIATION_PROCESSING: 'processing',
  INITIATION_COMPLETED: 'completed',
  INITIATION_REJECTED: 'rejected',
  INITIATION_REJECTED_INSUFFICIENT_FUNDS: 'rejected_insufficient_funds',
  INITIATION_FAILED: 'failed',
  INITIATION_DECLINED: 'declined',
  CANCELED: 'canceled',
  INITIATION_EXPIRED: 'expired',
  INITIATION_NO_FINAL_STATUS_AVAILABLE: 'no_final_status',
  SETTLEMENT_IN_PROGRESS: 'settling',
  SETTLEMENT_COMPLETED: 'settled',
  SETTLEMENT_INCOMPLETE: 'settlement_incomplete',
};

export function providerStatusOf(tokenioStatus: string): string {
  return PAYMENT_STATUS_MAP[tokenioStatus] ?? 'unknown';
}

/** The payer still has to act at the bank (the redirect URL is the way there). */
export function awaitsPayer(tokenioStatus: string): boolean {
  return AWAITING_BANK.includes(tokenioStatus);
}

/**
 * VRP consent status -> the mandate code the recurring module understands; null while the payer
 * has not decided. FAILED (bank unreachable or abandoned; every PENDING becomes FAILED after 30
 * minutes) is reported as the authorization having lapsed (docs/vendors/tokenio.md, point 12).
 */
export function mandateCodeOf(consentStatus: string): MandateCode | null {
  switch (consentStatus) {
    case 'AUTHORIZED':
      return 'mandate_authorized';
    case 'REJECTED':
      return 'mandate_rejected';
    case 'FAILED':
      return 'mandate_expired';
    case 'REVOKED':
      return 'mandate_revoked';
    default:
      return null;
  }
}
