/** Messages of our own (not in the spec) used by the KYC/KYB feature. */
export const KycMessages = {
  verificationRecordNotFound: 'Verification record not found',
  verificationNotFound: 'Verification not found',
  documentNotFound: 'Document not found',
  questionnaireFileNotFound: 'Questionnaire file not found',
  unknownLevel: (name: string) => `Unknown verification level '${name}'`,
  levelExists: 'A verification level with this name already exists',
  levelNotFound: 'Verification level not found',
  unknownCheck: (check: string, allowed: readonly string[]) =>
    `Unknown check '${check}'; allowed: ${allowed.join(', ')}`,
  nothingToResubmit: 'There is no verification to resubmit',
  notResubmittable: (status: string) =>
    `A verification in status '${status}' cannot be resubmitted (only declined, expired or in_review)`,
  linkWithdrawn: 'This verification link is no longer valid; ask for a new link.',
  providerUnavailable: 'Verification provider unavailable, please retry later',
} as const;
