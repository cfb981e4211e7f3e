/**
 * The stand-in's data shapes, field for field as Token.io documents them. Schema names are those of
 * Token.io's API reference (https://docs.token.io/products/tpp/api/reference/); see
 * docs/vendors/tokenio.md for the pages. Written from the documentation, not from our adapter.
 */

/** PaymentStatus (reference: Payments v2, schema `PaymentStatus`). */
export const PAYMENT_STATUSES = [
  'INITIATION_PENDING',
  'INITIATION_PENDING_REDIRECT_AUTH',
  'INITIATION_PENDING_REDIRECT_AUTH_VERIFICATION',
  'INITIATION_PENDING_REDIRECT_HP',
  'INITIATION_PENDING_REDIRECT_PBL',
  'INITIATION_PENDING_EMBEDDED_AUTH',
  'INITIATION_PENDING_EMBEDDED_AUTH_VERIFICATION',
  'INITIATION_PENDING_DECOUPLED_AUTH',
  'INITIATION_PENDING_REDEMPTION',
  'INITIATION_PENDING_REDEMPTION_VERIFICATION',
  'INITIATION_PROCESSING',
  'INITIATION_COMPLETED',
  'INITIATION_REJECTED',
  'INITIATION_REJECTED_INSUFFICIENT_FUNDS',
  'INITIATION_FAILED',
  'INITIATION_DECLINED',
  'INITIATION_EXPIRED',
  'INITIATION_NO_FINAL_STATUS_AVAILABLE',
  'SETTLEMENT_IN_PROGRESS',
  'SETTLEMENT_COMPLETED',
  'SETTLEMENT_INCOMPLETE',
  'CANCELED',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** The statuses after which Token.io stops polling the bank (reference `PaymentStatus` descriptions). */
export const FINAL_PAYMENT_STATUSES: ReadonlySet<string> = new Set([
  'INITIATION_COMPLETED',
  'INITIATION_REJECTED',
  'INITIATION_REJECTED_INSUFFICIENT_FUNDS',
  'INITIATION_FAILED',
  'INITIATION_DECLINED',
  'INITIATION_EXPIRED',
  'INITIATION_NO_FINAL_STATUS_AVAILABLE',
  'SETTLEMENT_COMPLETED',
  'SETTLEMENT_INCOMPLETE',
  'CANCELED',
]);

/** VrpConsentStatus (reference: Variable Recurring Payments; docs "VRP consent status"). */
export type VrpConsentStatus =
  | 'PENDING'
  | 'PENDING_MORE_INFO'
  | 'PENDING_REDIRECT_AUTH'
  | 'PENDING_REDIRECT_AUTH_VERIFICATION'
  | 'AUTHORIZED'
  | 'REJECTED'
  | 'REVOKED'
  | 'FAILED';

/** member.SubTpp.Status (reference: Sub-TPPs). */
export type SubTppStatus = 'AWAITING_APPROVAL' | 'ACTIVATED' | 'REJECTED' | 'DEACTIVATED';

/** Amount (reference: schema `Amount`). */
export interface Amount {
  value: string;
  currency: string;
}

/** PaymentInitiation (reference: Payments v2, POST /v2/payments body `initiation`). */
export interface PaymentInitiation {
  bankId?: string;
  refId: string;
  remittanceInformationPrimary: string;
  remittanceInformationSecondary?: string;
  onBehalfOfId?: string;
  vrpConsentId?: string;
  amount: Amount;
  localInstrument: string;
  debtor?: Record<string, unknown>;
  creditor: Record<string, unknown>;
  executionDate?: string;
  confirmFunds?: boolean;
  callbackUrl: string;
  callbackState?: string;
  flowType: 'API_ONLY' | 'FULL_HOSTED_PAGES' | 'EMBEDDED_HOSTED_PAGES';
  [extra: string]: unknown;
}

/** Payment (reference: Payments v2, schema `Payment`, as in `PaymentResponse`). */
export interface Payment {
  id: string;
  memberId: string;
  initiation: PaymentInitiation;
  status: PaymentStatus;
  statusReasonInformation?: string;
  bankPaymentStatus?: string;
  bankPaymentId?: string;
  bankTransactionId?: string;
  bankVrpId?: string;
  bankVrpStatus?: string;
  authentication?: { redirectUrl: string };
  createdDateTime: string;
  updatedDateTime: string;
  errorInfo?: {
    httpErrorCode: number;
    message?: string;
    tokenExternalError?: boolean;
    tokenTraceId?: string;
  };
  /** Reference `RefundDetails`: only when the initiation asked `returnRefundAccount` (and the bank shared it). */
  refundDetails?: RefundDetails;
}

/** Reference `RefundAccount`: an IBAN (SEPA, SEPA Instant) or a UK account, with the owner's name. */
export type RefundAccount =
  | { name?: string; iban: string; bic?: string }
  | { name?: string; sortCode: string; accountNumber: string };

/** Reference `RefundDetails` (on a Payment). */
export interface RefundDetails {
  refundAccount: RefundAccount;
  paymentRefundStatus: 'NONE' | 'PARTIAL' | 'FULL';
  settledRefundAmount: Amount;
  remainingRefundAmount: Amount;
}

/** Reference `StatusRefund`. */
export const REFUND_STATUSES = [
  'INITIATION_PENDING',
  'INITIATION_PROCESSING',
  'INITIATION_COMPLETED',
  'INITIATION_REJECTED',
  'INITIATION_FAILED',
  'INITIATION_NO_FINAL_STATUS_AVAILABLE',
] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
export const FINAL_REFUND_STATUSES: ReadonlySet<string> = new Set([
  'INITIATION_COMPLETED',
  'INITIATION_REJECTED',
  'INITIATION_FAILED',
  'INITIATION_NO_FINAL_STATUS_AVAILABLE',
]);

/** Reference `RefundInitiation` (POST /refunds body `initiation`). */
export interface RefundInitiation {
  refId: string;
  originalPaymentId: string;
  amount: Amount;
  localInstrument: 'SEPA' | 'SEPA_INSTANT' | 'FASTER_PAYMENTS';
  description: string;
  onBehalfOfId?: string;
  [extra: string]: unknown;
}

/** Reference `Refund` (as in `RefundResponse`); `initiation` is the reference's `ResolvedRefundInitiation`. */
export interface Refund {
  id: string;
  memberId: string;
  status: RefundStatus;
  statusReasonInformation?: string;
  bankPaymentStatus?: string;
  bankTransactionId?: string;
  createdDateTime: string;
  updatedDateTime: string;
  initiation: RefundInitiation & { debtor: Record<string, unknown>; creditor: Record<string, unknown> };
}

/** VrpConsentInitiation (reference: POST /vrp-consents body `initiation`). */
export interface VrpConsentInitiation {
  bankId?: string;
  refId: string;
  remittanceInformationPrimary: string;
  onBehalfOfId?: string;
  scheme: 'OBL_SWEEPING';
  localInstrument: 'FASTER_PAYMENTS';
  creditor: { name: string; sortCode: string; accountNumber: string; [k: string]: unknown };
  currency: string;
  minimumIndividualAmount?: string;
  maximumIndividualAmount: string;
  periodicLimits: {
    maximumAmount: string;
    periodType: 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';
    periodAlignment?: string;
  }[];
  maximumOccurrences?: number;
  startDateTime?: string;
  endDateTime?: string;
  callbackUrl: string;
  callbackState: string;
  [extra: string]: unknown;
}

/** VrpConsent (reference: schema `VrpConsent`, as in `VrpConsentResponse`). */
export interface VrpConsent {
  id: string;
  memberId: string;
  initiation: VrpConsentInitiation;
  createdDateTime: string;
  updatedDateTime: string;
  status: VrpConsentStatus;
  bankVrpConsentId?: string;
  bankVrpConsentStatus?: string;
  statusReasonInformation?: string;
  authentication?: { redirectUrl: string };
}

/** member.SubTpp (reference: Sub-TPPs, GET /member/sub-tpps/{subTppId} answer `subTpp`). */
export interface SubTpp {
  id: string;
  memberId: string;
  name: string;
  domain: string;
  merchant: Record<string, unknown>;
  mccCode?: string;
  parentSubTppId?: string;
  status: SubTppStatus;
  statusReasonInformation?: string;
  childSubTppIds: string[];
  createdAt: string;
  updatedAt: string;
}

/** BankV2 (reference: Banks v2, GET /v2/banks answer `banks[]`): the fields the stand-in fills. */
export interface BankV2 {
  id: string;
  name: string;
  bic: string;
  logoUri: string;
  countries: string[];
  openBankingStandard: string;
  supportedLocalInstruments: string[];
  supportsSinglePayment: boolean;
  supportsScheduledPayment: boolean;
  supportsVariableRecurringPayment: boolean;
  supportsReturnRefundAccount: boolean;
  supportsFundsConfirmation: boolean;
  mandatoryFields: {
    products?: string[];
    fieldPaths?: string[];
    paymentTypes?: string[];
    localInstruments?: string[];
  }[];
  maintenanceWindow: unknown[];
  operationalTime: string;
}

function bank(
  id: string,
  name: string,
  bic: string,
  countries: string[],
  instruments: string[],
  vrp: boolean,
  refundAccount = false,
  mandatoryFields: BankV2['mandatoryFields'] = [],
): BankV2 {
  return {
    id,
    name,
    bic,
    logoUri: `https://example.com/banks/${id}.png`,
    countries,
    openBankingStandard: countries.includes('GB') ? 'UK_Open_Banking_Standard' : 'NextGenPsd2',
    supportedLocalInstruments: instruments,
    supportsSinglePayment: true,
    supportsScheduledPayment: false,
    supportsVariableRecurringPayment: vrp,
    supportsReturnRefundAccount: refundAccount,
    supportsFundsConfirmation: true,
    mandatoryFields,
    maintenanceWindow: [],
    operationalTime: 'MON to SUN, 00:00 to 24:00 GMT',
  };
}

/** The stand-in's connected banks (`ob-modelo` is the id the reference's examples use). */
export const STANDIN_BANKS: BankV2[] = [
  // Modelo and Rheinbank share the payer's account for refunds (`supportsReturnRefundAccount`).
  bank('ob-modelo', 'Modelo Bank', 'MODOGB22', ['GB'], ['FASTER_PAYMENTS'], true, true),
  bank('ob-greenleaf', 'Greenleaf Bank', 'GRNLGB2L', ['GB'], ['FASTER_PAYMENTS'], false),
  bank('ngp-rheinbank', 'Rheinbank', 'RHEIDEFF', ['DE', 'AT'], ['SEPA', 'SEPA_INSTANT'], false, true),
  bank('ngp-baltic', 'Baltic Savings', 'BALTLV22', ['LV', 'LT', 'EE'], ['SEPA', 'SEPA_INSTANT'], false),
  bank('ob-harbour', 'Harbour Building Society', 'HRBRGB21', ['GB'], ['FASTER_PAYMENTS'], true),
  // A bank without SEPA Instant: EUR payments go by plain SEPA credit transfer.
  bank('ngp-laguna', 'Banca Laguna', 'LAGUITMM', ['IT'], ['SEPA'], false),
  // A bank that requires the payer's account in the request (reference `MandatoryFieldsv2`, example
  // `initiation.debtor`): our checkout does not collect it, so it is never offered.
  bank('ngp-pohjola', 'Pohjola Savings', 'POHJFIHH', ['FI'], ['SEPA', 'SEPA_INSTANT'], false, false, [
    { products: ['SIP'], fieldPaths: ['initiation.debtor'], paymentTypes: ['Domestic'] },
  ]),
  // A bank whose only rail is one we never send (Elixir, Poland): it can take none of our payments.
  bank('pl-wisla', 'Bank Wisla', 'WISLPLPW', ['PL'], ['ELIXIR'], false),
];

/** Error bodies (reference: `inline_response_*`, `ErrorWithCode`). */
export function errorBody(errorCode: string, message: string, extra: Record<string, unknown> = {}) {
  return { error: { errorCode, message, tokenTraceId: `trace${Date.now().toString(36)}`, ...extra } };
}
