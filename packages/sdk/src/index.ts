/** @svc/sdk: the typed client of the payments API and webhook verification. */
export type { SessionTokens, TokenSource } from './auth';
export { ApiCredentialAuth, SessionAuth } from './auth';
export type {
  ClientOptions,
  LoginResult,
  PaymentLink,
  PaymentLinkRequest,
  Permission,
  Schemas,
  SvcClient,
} from './client';
export { createClient, unwrap } from './client';
export type { ValidationIssue } from './errors';
export { SvcApiError } from './errors';
export type { components, operations, paths, webhooks } from './generated/schema';
export type { ListItem, ListPath, PaginateInit } from './paginate';
export { takesIdempotencyKey } from './transport';
export type {
  HeadersLike,
  VerifyOptions,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
} from './webhooks';
export { constructEvent, SvcWebhookSignatureError, verifyWebhookSignature } from './webhooks';
