/** Messages of our own (not in the spec) used by the payments feature. */
export const PaymentMessages = {
  terminalCannotCancel: 'Transaction is already in terminal status and cannot be canceled.',
  invalidNotificationSignature: 'Invalid notification signature',
  paymentNetworkUnavailable: 'Payment network is unavailable, please retry later',
  projectArchived: 'Project is archived',
  /** The project's opco was deactivated (by staff, or its Sub-TPP by the payment network). */
  opcoDeactivated: 'The project’s opco is deactivated: the payment network no longer takes payments for it',
  transactionChangedMeanwhile: 'Transaction was changed meanwhile, please retry',
} as const;
