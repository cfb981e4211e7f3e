/** Messages of the refunds feature (docs/guides/refunds.md). */
export const RefundMessages = {
  refundNotFound: 'Refund not found',
  onlySuccessfulPayments: (status: string) =>
    `Only a successful payment can be refunded; this payment is '${status}'`,
  exceedsRefundable: (left: string, currency: string) =>
    `Refund exceeds the refundable amount (${left} ${currency} left to refund)`,
  nothingLeft: (currency: string) =>
    `Refund exceeds the refundable amount: nothing is left to refund (0 ${currency})`,
  amountFormat: 'Amount must be a decimal string such as "125.50"',
  amountNotPositive: 'Amount must be greater than 0',
  amountPrecision: (currency: string, scale: number) =>
    `Amount has more decimals than ${currency} allows (at most ${scale})`,
  currencyMismatch: (currency: string) => `A refund is in the payment's currency (${currency})`,
  networkCannotRefund: 'The payment network cannot refund payments; refund this payment by bank transfer',
  cannotCancel: (status: string) => `Refund in status '${status}' cannot be canceled`,
  alreadySubmitted:
    'Refund was already handed to the payment network and can no longer be canceled; it will succeed or fail there',
  notAllowed: (status: string) => `Refund in status '${status}' does not allow this action`,
  changedMeanwhile: 'Refund was changed meanwhile, please retry',
  paymentNetworkUnavailable: 'Payment network is unavailable, please retry later',
  refusedByNetwork: 'The payment network refused the refund',
} as const;
