/** @svc/sdk: the typed client of the payments API and webhook verification. */
export type { SessionTokens, TokenSource } from './auth.js';
export { ApiCredentialAuth, SessionAuth } from './auth.js';
export type {
  ClientOptions,
  LoginResult,
  PaymentLink,
  PaymentLinkRequest,
  Permission,
  Schemas,
  SvcClient,
} from './client.js';
export { createClient, unwrap } from './client.js';
export type { ValidationIssue } from './errors.js';
export { SvcApiError } from './errors.js';
export type { components, operations, paths, webhooks } from './generated/schema.js';
export type * from './generated/webhook-events.js';
export type { ListItem, ListPath, PaginateInit } from './paginate.js';
export { takesIdempotencyKey } from './transport.js';
export type { HeadersLike, VerifyOptions } from './webhooks.js';
export {
  constructEvent,
  SvcWebhookSignatureError,
  verifyWebhookSignature,
  WEBHOOK_EVENT_TYPES,
} from './webhooks.js';
