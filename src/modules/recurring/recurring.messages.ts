/** Recurring payment messages (docs/guides/recurring.md), verbatim; tests import them from here. */
export const RecurringMessages = {
  notFound: 'Recurring payment not found',
  runNotFound: 'Run not found',
  terminal: (status: string) => `Recurring payment is in terminal status '${status}'`,
  mandateNotAuthorized: 'Mandate is not authorized',
  exceedsLimits: 'Amount exceeds the mandate limits',
  noFailedRun: 'No failed run to retry',
  onlyFailedRuns: 'Only failed runs can be retried',
  maxAttempts: 'Run has reached the maximum number of attempts',
  outcomeUnknown:
    'The latest attempt of this run has no final status from the bank and may have been paid; it is held for manual review, so it cannot be retried until the review settles it',
  // Our own (the spec is silent on these).
  actionNotAllowed: (status: string) => `Recurring payment in status '${status}' does not allow this action`,
  runActionNotAllowed: (status: string) => `Run in status '${status}' does not allow this action`,
  amountRequiredWithSchedule: 'amount is required with schedule',
  amountAboveMaxPerPayment: 'amount must not exceed mandate.max_amount_per_payment',
  limitAmountInvalid: 'Amount must be a decimal string such as "125.50"',
  endBeforeStart: 'end_date must not be before start_date',
  startInPast: 'start_date must not be before today',
  validToInPast: 'valid_to must be in the future',
  resumeAtInPast: 'resume_at must be in the future',
  payerRequired: 'Exactly one of user_id and business_customer_id is required',
  retryHoursTooMany: 'retry_after_hours has at most 5 entries',
  changedMeanwhile: 'The recurring payment changed meanwhile; try again',
  bankMandatesDisabled:
    'Recurring payments by bank are not enabled on this deployment: Token.io VRP is sweeping only (payments between the payer’s own accounts); paying a merchant needs commercial VRP agreed with Token.io and the banks first',
} as const;
