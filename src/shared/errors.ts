/**
 * One error family for the whole service. Services throw AppError; the Fastify error
 * handler turns it into the spec's `{detail}` body (or the 422 list) with its headers.
 */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class AppError extends Error {
  constructor(
    public readonly statusCode: number,
    public readonly detail: string,
    public readonly headers: Record<string, string> = {},
    /** Optional fields answered beside `detail` (a 401's `error_description`, a 403's permission). */
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'AppError';
  }
}

/** 422 with the `{detail: [{loc, msg, type}]}` body; used for checks a schema cannot express. */
export class ValidationError extends AppError {
  constructor(public readonly issues: ValidationIssue[]) {
    super(422, issues.map((i) => i.msg).join('; '));
    this.name = 'ValidationError';
  }
}

export const badRequest = (detail: string) => new AppError(400, detail);
export const unauthorized = (detail: string) => new AppError(401, detail, { 'WWW-Authenticate': 'Bearer' });

/** Why a bearer token was refused, for the RFC 6750 `WWW-Authenticate` challenge. */
export type TokenProblem =
  | 'missing'
  | 'not_bearer'
  | 'expired'
  | 'invalid'
  | 'revoked'
  | 'inactive'
  | 'api_credential';
const TOKEN_PROBLEM_TEXT: Record<Exclude<TokenProblem, 'missing'>, string> = {
  expired: 'The access token expired',
  invalid: 'The access token is malformed, has a bad signature or is for another environment',
  revoked: 'The access token was revoked',
  inactive: 'The client, account or credential of the access token is no longer active',
  api_credential:
    'An API key or secret is not an access token: exchange the key and secret at POST /api/v1/auth/api-token ' +
    'and send the access_token it returns as the bearer token',
  not_bearer:
    'The Authorization header must be Bearer <access_token>: the word Bearer, a space, then the token',
};

/**
 * 401 for a refused bearer token: the spec's detail, and an RFC 6750 challenge naming the problem.
 * The body repeats the challenge's description as `error_description` (no token sent: neither).
 */
export function invalidToken(detail: string, problem: TokenProblem): AppError {
  if (problem === 'missing') return new AppError(401, detail, { 'WWW-Authenticate': 'Bearer' });
  const description = TOKEN_PROBLEM_TEXT[problem];
  // No Bearer credentials at all (RFC 6750 3.1: the plain challenge), but the body says the form.
  if (problem === 'not_bearer')
    return new AppError(401, detail, { 'WWW-Authenticate': 'Bearer' }, { error_description: description });
  return new AppError(
    401,
    detail,
    { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"` },
    { error_description: description },
  );
}
export const forbidden = (detail: string) => new AppError(403, detail);

/**
 * 403 for a token without the route's permission: the RFC 6750 (3.1) hint naming it, and the body
 * names it too, with the roles that have it, so whoever hands out the credential knows what to pick.
 */
export const insufficientScope = (
  detail: string,
  permission: string,
  rolesWithPermission: readonly string[],
) =>
  new AppError(
    403,
    detail,
    { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${permission}"` },
    { required_permission: permission, roles_with_permission: [...rolesWithPermission] },
  );
export const notFound = (detail: string) => new AppError(404, detail);
export const conflict = (detail: string) => new AppError(409, detail);

/** 429 with Retry-After and the X-RateLimit-* headers the spec requires on every 429. */
export function tooManyRequests(
  detail: string,
  retryAfterSeconds: number,
  limit: number,
  resetAt: Date,
): AppError {
  const retry = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(429, detail, {
    'Retry-After': String(retry),
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(Math.ceil(resetAt.getTime() / 1000)),
  });
}

export function invalidField(loc: (string | number)[], msg: string, type = 'value_error'): ValidationError {
  return new ValidationError([{ loc, msg, type }]);
}
