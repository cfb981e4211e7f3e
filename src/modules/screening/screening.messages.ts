/** Messages of wallet screening and wallet ownership (docs/guides/screening.md), verbatim. */
export const ScreeningMessages = {
  providerNotConfigured: 'Screening provider is not configured',
  screeningNotFound: 'Screening not found',
  walletNotFound: 'Wallet not found',
  ownershipNotFound: 'Wallet ownership request not found',
  invalidAddress: (chain: string) => `Invalid address for chain '${chain}'`,
  providerError: 'Screening provider error',
  providerUnavailable: 'Screening provider is unavailable',
  notPending: (status: string) => `Screening in status '${status}' cannot be simulated`,
  invalidSignature: 'Invalid signature',
  methodNotSupported: (method: string, chain: string) =>
    `Method '${method}' is not supported for chain '${chain}'`,
  methodNotAllowed: (method: string) => `Method '${method}' is not allowed for this request`,
  terminal: (status: string) => `Wallet ownership request is in terminal status '${status}'`,
  oneCustomer: 'Exactly one of user_id or business_customer_id is required',
  notBoth: 'Give user_id or business_customer_id, not both',
  signatureRequired: 'signature is required for message_signing',
  declarantRequired: 'declarant_name is required for self_declaration',
  notVerifying: (status: string) => `Wallet ownership request in status '${status}' has no deposit to report`,
  wrongAmount: 'Deposit amount does not match the Satoshi test',
  depositWindowClosed: 'The deposit window closed before a matching deposit arrived',
  attemptsExhausted: 'Too many invalid signatures',
  changedMeanwhile: 'Wallet ownership request was changed meanwhile, please retry',
  ownershipOpen: (id: string, status: string) =>
    `Wallet ownership request ${id} for this wallet is still open (status '${status}'): complete or cancel it before asking again`,
} as const;
