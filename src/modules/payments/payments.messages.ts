/** Messages of our own (not in the spec) used by the payments feature. */
export const PaymentMessages = {
  terminalCannotCancel: 'Transaction is already in terminal status and cannot be canceled.',
  invalidNotificationSignature: 'Invalid notification signature',
  paymentNetworkUnavailable: 'Payment network is unavailable, please retry later',
  projectArchived: 'Project is archived',
  transactionChangedMeanwhile: 'Transaction was changed meanwhile, please retry',
} as const;
