/** Travel-rule messages, the product's own wording verbatim (docs/guides/travel-rule.md). */
export const TravelRuleMessages = {
  providerNotConfigured: 'Travel-rule network provider is not configured',
  screeningUnavailable: 'Screening provider is unavailable',
  settingsIncomplete: 'Travel rule settings are incomplete: originator VASP identity is missing',
  duplicateReference: 'Transfer with this client_reference already exists',
  transferNotFound: 'Transfer not found',
  vaspNotFound: 'VASP not found',
  badState: (status: string) => `Transfer in status '${status}' does not allow this action`,
  nameRequired: 'A name is required: first_name and last_name (natural) or legal_name (legal)',
  accountNumberRequired: 'account_number is required',
  originatorIdentityRequired:
    'The originator needs at least one of address, date_of_birth or national_identifier',
  proceeded: 'Proceeded without counterparty confirmation',
  ownershipVerified: 'Wallet ownership verified',
  ownershipFailed: 'Wallet ownership could not be verified',
  ownershipExpired: 'Wallet ownership request expired',
  canceled: 'Canceled by the client',
  expired: 'The counterparty did not answer in time',
  reviewExpired: 'Not reviewed in time',
  changedMeanwhile: 'Transfer was changed meanwhile, please retry',
} as const;
