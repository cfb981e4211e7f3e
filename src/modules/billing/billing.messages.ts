/**
 * Billing's own messages (the spec's 404 `Invoice not found` is in shared/messages.ts M):
 * named-areas.md section 9 quotes the first two verbatim; the rest are ours.
 */
export const BillingMessages = {
  actionNotAllowed: (status: string) => `Invoice in status '${status}' does not allow this action`,
  noPriceList: 'Client has no billing price list',
  // ours
  linesOrUsage: 'Give either lines or from_usage: true',
  periodOrder: 'period_end must not be before period_start',
  currencyMismatch: (currency: string) => `The client's price list is in ${currency}`,
  decimal: (places: number) => `Must be a non-negative decimal string with at most ${places} decimal places`,
  noLines: 'An invoice needs at least one line',
  pdfMissing: 'Invoice PDF is not available',
  pdfCorrupt: 'Invoice PDF failed its integrity check',
  changedMeanwhile: 'Invoice was changed meanwhile, please retry',
} as const;
