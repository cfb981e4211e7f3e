/**
 * The spec's error messages, verbatim. Clients match on these strings, so handlers and
 * tests both import them from here instead of retyping them.
 */
export const M = {
  // 400
  invalidApiKey: 'Invalid API key or secret',
  invalidRefreshToken: 'Invalid refresh token',
  notDashboardToken: 'Current token is not a dashboard account token',
  passwordMustDiffer: 'New password must be different from current password',
  currentPasswordIncorrect: 'Current password is incorrect',
  refreshTokenMismatch: 'Refresh token does not belong to current access token',
  totpNotEnrolled: 'Cannot enable TOTP before enrolling an authenticator app',
  mfaNeedsMethod: 'When account MFA is enabled, at least one method must be enabled',
  mfaPrimaryTotpDisabled: 'Account primary MFA method is totp but totp MFA is disabled',
  totpEnrollmentInvalid: 'TOTP enrollment challenge is invalid or expired',
  invalidAuthenticatorCode: 'Invalid authenticator code',
  accountEmailExists: 'Client account email already exists',
  lastOwnerDelete: 'Cannot delete the last active owner',
  lastOwnerDemote: 'Cannot deactivate or demote the last active owner',
  cannotDeleteSelf: 'Cannot delete the currently logged-in account',
  opcoNotEditable: 'Opco is in status and can no longer be edited',
  opcoAlreadyInStatus: (status: string) => `Opco is already in '${status}' status`,
  opcoNotBindable: 'Opco cannot be bound to a project when rejected or deactivated',
  opcoOtherClient: 'Target opco belongs to a different client',
  opcoTypeNull: 'Opco_type cannot be null',
  soleTraderRequired: 'Sole_trader is required for licensed_tpp_sole_trader',
  ubosRequired: 'UBOs / Directors / Signatories is required for licensed_tpp_non_sole_trader_private',
  callbackUrlNotSet: 'Callback URL is not set',
  terminalCannotRefresh: 'Transaction in terminal status cannot be refreshed',
  noUpstreamId: 'Transaction has no upstream payment id, cannot refresh',
  idempotencyKeyEmpty: 'X-Idempotency-Key must not be empty',
  opcoNoSubTpp: 'Opco does not have a valid Sub-TPP ID',
  webhookUrlRequired: 'Webhook_url is required when webhook is enabled',
  webhookUrlRequiredForTest: 'Webhook_url is required before sending a test event',
  securityChallengeRequired: 'Security verification is required for this action',
  securityChallengeInvalid: 'Security challenge is invalid or expired',
  securityCodeInvalid: 'Invalid security code',
  totpNotEnabled: 'TOTP is not enabled for this account',
  verificationCodeInvalid: 'Invalid or expired verification code',
  clientChangedMeanwhile: 'Client was changed meanwhile, please retry',
  invalidOtpCode: 'Invalid OTP code',
  emailCodeNotSent: 'No email code has been sent for this challenge, request one first',
  mfaMethodNotAllowed: 'This MFA method is not available for this account',
  totpAlreadyEnrolled: 'TOTP is already enrolled, disable it before enrolling a new authenticator',
  apiCredentialDisabled: 'API credential is disabled',
  // 401
  couldNotValidate: 'Could not validate credentials',
  tokenRevoked: 'Token has been revoked',
  incorrectLogin: 'Incorrect email or password',
  clientNotActive: 'Client is not active',
  accountNotActive: 'Client account is not active',
  invalidOtpChallenge: 'Invalid OTP challenge payload',
  // 403
  insufficientPermissions: 'Insufficient permissions for this action',
  dashboardTokenRequired: 'This action requires a dashboard account token',
  paymentLinksDisabled: 'Payment link generation is disabled for this client',
  kycLinksDisabled: 'KYC link generation is disabled for this client',
  projectFrozen: 'Project is frozen by admin',
  productionAccessDisabled: 'Production access is disabled for this client',
  clientNotActivated: 'Client is not activated yet. Please verify email first',
  registrationDisabled: 'Client registration is not allowed, please contact support',
  // 404
  notFound: 'Not Found',
  opcoNotFound: 'Opco not found',
  projectNotFound: 'Project not found',
  transactionNotFound: 'Transaction not found',
  userNotFound: 'User not found',
  userNotFoundCreateFirst: 'User not found, please create the user first',
  accountNotFound: 'Account not found',
  apiCredentialNotFound: 'API credential not found',
  businessCustomerNotFound: 'Business customer not found',
  clientNotFound: 'Client not found',
  // (not in the spec's catalogue; our additions for the webhook resources)
  webhookDestinationNotFound: 'Webhook destination not found',
  webhookDeliveryNotFound: 'Webhook delivery not found',
  webhookDeliveryInFlight: 'Webhook delivery is being attempted right now, retry later',
  webhookDestinationDeleted: 'Webhook destination was deleted',
  webhookUrlInvalid: 'URL must be an absolute http or https URL',
  webhookUrlNotPublic: 'URL must resolve to a public address',
  webhookEventTypeUnknown: 'Unknown event type',
  // 409
  idempotencyPayloadMismatch: 'Idempotency key already used with a different request payload.',
  idempotencyInProgress: 'Duplicated request with same idempotency key is still being processed.',
  terminalCannotCheckout: 'Transaction is already in terminal status and cannot start a new checkout.',
  userEmailExists: 'A user with this email already exists',
  businessEmailExists: 'A business customer with this email already exists',
  // 429
  tooManyAttempts: (seconds: number) => `Too many attempts, please try again in ${seconds} seconds`,
  refreshTooSoon: 'Please wait before refreshing this transaction again',
  codeResendTooSoon: (seconds: number) => `Please wait ${seconds} seconds before requesting a new code`,
  // 5xx
  internalError: 'Internal Server Error',
  failedToInitiatePayment: 'Failed to initiate payment',
  failedToCreateUser: 'Failed to create user, please retry',
  failedToInitKycUser: 'Failed to initialize user for KYC, please retry',
  failedToInitiateKyc: 'Failed to initiate KYC, please retry later',
  emailDeliveryFailed: 'Email delivery failed. Please retry later or contact support.',
  // Support tickets and billing invoices (docs/guides/errors.md lists every catalogue)
  closedTicketNoClientReplies: 'Closed tickets cannot receive new client replies',
  closedTicketReopenFirst: 'Closed tickets must be reopened before replying',
  onlyResolvedClientClose: 'Only resolved tickets can be closed by the client',
  ticketNotFound: 'Ticket not found',
  invoiceNotFound: 'Invoice not found',
} as const;

/** Messages of our own (not in the spec) used by the payments feature. */
export const PM = {
  terminalCannotCancel: 'Transaction is already in terminal status and cannot be canceled.',
  invalidNotificationSignature: 'Invalid notification signature',
  paymentNetworkUnavailable: 'Payment network is unavailable, please retry later',
  transactionChangedMeanwhile: 'Transaction was changed meanwhile, please retry',
} as const;

/** Messages of our own (not in the spec) used by the KYC/KYB feature. */
export const KM = {
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
  providerUnavailable: 'Verification provider unavailable, please retry later',
} as const;

/** Messages of our own (not in the spec) used by the workflows feature. */
export const WM = {
  workflowNotFound: 'Workflow not found',
  runNotFound: 'Workflow run not found',
  triggerNotFound: 'Workflow trigger not found',
  templateReadOnly: 'System templates are read-only; fork the template to make your own copy',
  templateNotRunnable: 'System templates cannot be run; fork the template and publish your copy',
  notEditable: 'Workflow is published and can no longer be edited; fork it to make a new draft',
  alreadyPublished: "Workflow is already in 'PUBLISHED' status",
  hasRuns: 'Workflow has runs and cannot be deleted; archive it instead',
  notPublished: 'Only a published workflow can be run; publish it first',
  archived: 'Workflow is archived; unarchive it to start new runs',
  unsupportedNode: (nodeId: string, type: string) =>
    `Node '${nodeId}' uses node type '${type}', which this service does not support yet; remove it before publishing`,
  noTriggerSecret: 'Only a published webhook-triggered workflow has a trigger secret',
  runNotCancelable: (status: string) => `Workflow run is already '${status}' and cannot be canceled`,
  runChangedMeanwhile: 'Workflow run was changed meanwhile, please retry',
  invalidTriggerSignature: 'Invalid trigger signature',
  invalidTriggerBody: 'Trigger body must be a JSON object',
  nodeNotPermitted: (nodeId: string, type: string, permission: string) =>
    `Insufficient permissions for this action: node '${nodeId}' (${type}) needs ${permission}`,
} as const;
