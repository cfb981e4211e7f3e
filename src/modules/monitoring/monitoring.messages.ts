/** The spec's monitoring messages (named-areas.md section 2), verbatim. */
export const MonitoringMessages = {
  notFound: 'Monitored transaction not found',
  transactionNotFound: 'Transaction not found',
  referenceConflict: 'Monitored transaction with this client_reference already exists',
  finalDecision: 'Monitored transaction already has a final decision',
  sameDecision: 'Decision must differ from the current decision',
  clearSanctions: 'Clear the sanctions match before approving',
  screeningNotConfigured: 'Screening provider is not configured',
  screeningUnavailable: 'Screening provider is unavailable',
  remediationNotFound: 'Remediation not found',
  documentNotFound: 'Document not found',
  noPendingRemediation: 'Monitored transaction has no pending remediation',
  sandboxForced: 'Sandbox forced outcome',
  changedMeanwhile: 'Monitored transaction was changed meanwhile, please retry',
} as const;
