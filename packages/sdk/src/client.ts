/**
 * `createClient`: the typed openapi-fetch client over the merchant API plus the hand-written
 * helpers (token handling, idempotency keys, pagination, session login).
 */
import createOpenApiClient, { type Client } from 'openapi-fetch';
import { ApiCredentialAuth, type AuthTransport, SessionAuth, type SessionTokens } from './auth.js';
import { errorOf, SvcApiError } from './errors.js';
import type { components, paths } from './generated/schema.js';
import { type ListItem, type ListPath, type PaginateInit, paginateWith } from './paginate.js';
import { createTransport } from './transport.js';

export interface ClientOptions {
  /** The service origin, e.g. `http://localhost:8000` (a trailing `/api/v1` is accepted). */
  baseUrl: string;
  /** API credential (server-to-server): exchanged for a token and renewed automatically. */
  apiKey?: string;
  apiSecret?: string;
  /** Dashboard session: rotated at POST /auth/refresh when the access token expires. */
  accessToken?: string;
  refreshToken?: string;
  /** Called with every new session pair (login, OTP, refresh) and with null when the session ends. */
  onTokens?: (tokens: SessionTokens | null) => void;
  /** A fetch implementation (default `globalThis.fetch`). */
  fetch?: (input: Request) => Promise<Response>;
  /** Network-error retries of repeatable requests (default 2; same idempotency key each time). */
  maxNetworkRetries?: number;
  /** The clock used to renew tokens before they expire, in ms (tests). Default `Date.now`. */
  now?: () => number;
}

export type Schemas = components['schemas'];
type Paylink = paths['/api/v1/checkout/paylink']['post'];
/**
 * The body of POST /checkout/paylink. `amount` is a decimal string in major units of the currency:
 * `'12.50'` is 12 euros 50 cents and `'1250'` is 1,250.00, never minor units (cents); a number is refused (422).
 */
export type PaymentLinkRequest = Paylink['requestBody']['content']['application/json'];
export type PaymentLink = Paylink['responses'][201]['content']['application/json'];
type VerifyOtpInput = NonNullable<
  paths['/api/v1/auth/login/verify-otp']['post']['requestBody']
>['content']['application/json'];
/** A permission name, as `GET /auth/me` reports the token's permissions. */
export type Permission =
  paths['/api/v1/auth/me']['get']['responses'][200]['content']['application/json']['permissions'][number];
type LoginOk = NonNullable<
  paths['/api/v1/auth/login']['post']['responses'][200]['content']['application/json']
>;
export type LoginResult =
  | { status: 'authenticated'; tokens: SessionTokens }
  | { status: 'otp_pending'; challenge: Extract<LoginOk, { challenge_token: string }> };

export interface SvcClient extends Client<paths> {
  /** Every item of a list endpoint, page after page (`for await (const tx of client.paginate(...))`). */
  paginate<P extends ListPath>(path: P, init?: PaginateInit<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** POST /checkout/paylink (`amount`: a decimal string in major units, '12.50'); the same `idempotencyKey` never makes a second transaction. */
  createPaymentLink(body: PaymentLinkRequest, opts?: { idempotencyKey?: string }): Promise<PaymentLink>;
  /** Session auth: log in; with MFA the answer is the `otp_pending` challenge for `verifyOtp`. */
  login(clientEmail: string, password: string): Promise<LoginResult>;
  verifyOtp(input: VerifyOtpInput): Promise<SessionTokens>;
  /** Revokes the access token and the refresh session; `onTokens(null)`. */
  logout(): Promise<void>;
  /** The current session pair (session auth), or null. */
  sessionTokens(): SessionTokens | null;
  /** The token source (API credential or session), for inspection. */
  readonly auth: ApiCredentialAuth | SessionAuth | null;
}

/** The data of an openapi-fetch result, or its SvcApiError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }, method = 'request'): T {
  const err = errorOf(result, method);
  if (err) throw err;
  return result.data as T;
}

const randomUUID = () => globalThis.crypto.randomUUID();

export function createClient(opts: ClientOptions): SvcClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  const rawFetch = opts.fetch ?? ((req: Request) => globalThis.fetch(req));
  const t: AuthTransport = { baseUrl, fetch: rawFetch, now: opts.now ?? Date.now };
  const hasCredential = opts.apiKey !== undefined || opts.apiSecret !== undefined;
  if (hasCredential && (opts.accessToken || opts.refreshToken))
    throw new Error('createClient: give an API credential or session tokens, not both');
  if (hasCredential && !(opts.apiKey && opts.apiSecret))
    throw new Error('createClient: apiKey and apiSecret go together');
  const auth = hasCredential
    ? new ApiCredentialAuth(t, opts.apiKey!, opts.apiSecret!)
    : new SessionAuth(t, { accessToken: opts.accessToken, refreshToken: opts.refreshToken }, opts.onTokens);
  const api = createOpenApiClient<paths>({
    baseUrl,
    fetch: createTransport({
      fetch: rawFetch,
      auth,
      maxNetworkRetries: opts.maxNetworkRetries ?? 2,
      randomUUID,
    }),
  });
  const session = () => {
    if (!(auth instanceof SessionAuth)) throw new Error('this client authenticates with an API credential');
    return auth;
  };

  const anyApi = api as unknown as {
    GET(path: string, init: unknown): Promise<{ data?: unknown; error?: unknown; response: Response }>;
  };
  const getPage = async (path: string, query: Record<string, unknown>, pathParams: unknown) =>
    unwrap(await anyApi.GET(path, { params: { query, path: pathParams } }), 'GET') as Record<string, unknown>;

  const client: SvcClient = {
    ...api,
    auth,
    paginate: (path, init) =>
      paginateWith(getPage, path, init as { query?: Record<string, unknown> }) as AsyncGenerator<
        ListItem<typeof path>,
        void,
        undefined
      >,
    async createPaymentLink(body, o = {}) {
      const res = await api.POST('/api/v1/checkout/paylink', {
        params: { header: { 'x-idempotency-key': o.idempotencyKey ?? randomUUID() } },
        body,
      });
      return unwrap(res, 'POST') as PaymentLink;
    },
    async login(clientEmail, password) {
      const s = session();
      const data = unwrap(
        await api.POST('/api/v1/auth/login', { body: { client_email: clientEmail, password } }),
        'POST',
      ) as LoginOk;
      if ('challenge_token' in data && data.token_type === 'otp_pending')
        return { status: 'otp_pending', challenge: data as Extract<LoginOk, { challenge_token: string }> };
      const pair = data as { access_token: string; refresh_token: string };
      const tokens = { accessToken: pair.access_token, refreshToken: pair.refresh_token };
      s.set(tokens);
      return { status: 'authenticated', tokens };
    },
    async verifyOtp(input) {
      const s = session();
      const data = unwrap(await api.POST('/api/v1/auth/login/verify-otp', { body: input }), 'POST');
      const tokens = { accessToken: data.access_token, refreshToken: data.refresh_token };
      s.set(tokens);
      return tokens;
    },
    async logout() {
      const s = session();
      const current = s.get();
      if (!current) return;
      try {
        const res = await api.POST('/api/v1/auth/logout', { body: { refresh_token: current.refreshToken } });
        // Already revoked or expired: the session is over either way.
        if (res.response.status !== 401) unwrap(res, 'POST');
      } finally {
        s.set(null);
      }
    },
    sessionTokens: () => (auth instanceof SessionAuth ? auth.get() : null),
  };
  return client;
}

export { SvcApiError };
