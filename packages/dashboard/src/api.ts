/**
 * The one place the dashboard talks to the API: a thin facade over the typed SDK (@svc/sdk), which
 * keeps the tokens, renews the session after a 401 (single-flight refresh-token rotation) and
 * retries. This module adds what a browser page needs on top: restoring a session from the refresh
 * token alone (after a reload), the re-login hook when the session cannot be renewed, and the
 * API's own error message for display.
 */
import { createClient as createSdk, type SessionTokens, SvcApiError, unwrap } from '@svc/sdk';

export { SvcApiError };

export interface Tokens {
  accessToken: string | null;
  refreshToken: string | null;
}

export interface ClientOptions {
  baseUrl: string;
  refreshToken?: string | null;
  onTokens?: (tokens: Tokens) => void;
  /** Called when a 401 cannot be cured by a refresh; resolves once the user has signed in again. */
  onSessionLost?: () => Promise<void>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** `blob` for files (an invoice PDF); JSON otherwise. */
  parseAs?: 'json' | 'blob';
}

export interface MfaPending {
  token_type: 'otp_pending';
  challenge_token: string;
  requires_mfa: true;
  allowed_mfa_methods: ('email' | 'totp')[];
  preferred_mfa_method: 'email' | 'totp';
}

/** The API's own message: `{detail}` as is; a 422 list as "field: message" lines. */
export function detailOf(err: SvcApiError): string {
  if (typeof err.detail === 'string') return err.detail;
  return err.detail
    .map((e) => {
      const field = e.loc.filter((p) => p !== 'body').join('.');
      return field ? `${field}: ${e.msg}` : e.msg;
    })
    .join('\n');
}

export const newIdempotencyKey = () => crypto.randomUUID();

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Result = { data?: unknown; error?: unknown; response: Response };
type Untyped = Record<Method, (path: string, init: object) => Promise<Result>>;

export function createClient(opts: ClientOptions) {
  const sdk = createSdk({
    baseUrl: opts.baseUrl,
    onTokens: (t: SessionTokens | null) =>
      opts.onTokens?.({ accessToken: t?.accessToken ?? null, refreshToken: t?.refreshToken ?? null }),
    // Renew on the API's 401, not on the browser's clock: a skewed clock would renew too early or late.
    now: () => 0,
  });
  const session = sdk.auth as { set(p: SessionTokens | null): void };
  /** A refresh token restored from sessionStorage, before any access token exists. */
  let pendingRefresh = opts.refreshToken ?? null;
  let restoring: Promise<boolean> | null = null;

  /** Turns the stored refresh token into a session (one attempt at a time; it rotates). */
  function restore(): Promise<boolean> {
    restoring ??= (async () => {
      const refreshToken = pendingRefresh;
      pendingRefresh = null;
      if (!refreshToken) return sdk.sessionTokens() !== null;
      const res = await fetch(`${opts.baseUrl}/api/v1/auth/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: refreshToken }),
      });
      if (!res.ok) {
        session.set(null);
        return false;
      }
      const pair = (await res.json()) as { access_token: string; refresh_token: string };
      session.set({ accessToken: pair.access_token, refreshToken: pair.refresh_token });
      return true;
    })().finally(() => {
      restoring = null;
    });
    return restoring;
  }

  async function send(method: Method, path: string, o: RequestOptions): Promise<unknown> {
    const query = Object.fromEntries(
      Object.entries(o.query ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== ''),
    );
    const headers = { ...o.headers, ...(o.idempotencyKey ? { 'x-idempotency-key': o.idempotencyKey } : {}) };
    // The pages name paths at run time; the SDK's typed paths are for code that knows them statically.
    const res = await (sdk as unknown as Untyped)[method](`/api/v1${path}`, {
      params: { query },
      headers,
      ...(o.parseAs ? { parseAs: o.parseAs } : {}),
      ...(o.body === undefined ? {} : { body: o.body }),
    });
    return unwrap(res, method);
  }

  async function request<T>(method: Method, path: string, o: RequestOptions = {}): Promise<T> {
    if (pendingRefresh) await restore();
    const hadSession = sdk.sessionTokens() !== null;
    try {
      return (await send(method, path, o)) as T;
    } catch (err) {
      // The SDK could not renew (refresh token expired or revoked): sign in again, then retry.
      const lost = hadSession && sdk.sessionTokens() === null;
      if (!(err instanceof SvcApiError) || !lost || !opts.onSessionLost) throw err;
      await opts.onSessionLost();
      return (await send(method, path, o)) as T;
    }
  }

  return {
    request,
    get: <T>(path: string, o?: RequestOptions) => request<T>('GET', path, o),
    post: <T>(path: string, body?: unknown, o?: RequestOptions) => request<T>('POST', path, { ...o, body }),
    put: <T>(path: string, body: unknown, o?: RequestOptions) => request<T>('PUT', path, { ...o, body }),
    patch: <T>(path: string, body: unknown, o?: RequestOptions) => request<T>('PATCH', path, { ...o, body }),
    del: <T>(path: string, o?: RequestOptions) => request<T>('DELETE', path, o),
    blob: (path: string, o?: RequestOptions) => request<Blob>('GET', path, { ...o, parseAs: 'blob' }),
    /** After a reload: a session from the stored refresh token, or false. */
    restore,
    hasSession: () => pendingRefresh !== null || sdk.sessionTokens() !== null,

    /** POST /auth/login: null once signed in, or the MFA challenge to finish with verifyOtp. */
    async login(email: string, password: string): Promise<MfaPending | null> {
      const r = await sdk.login(email, password);
      return r.status === 'otp_pending' ? (r.challenge as MfaPending) : null;
    },
    async verifyOtp(challengeToken: string, code: string, method: 'email' | 'totp') {
      await sdk.verifyOtp({ challenge_token: challengeToken, otp_code: code, method });
    },
    /** Revokes the access token and the refresh session; forgets both. */
    logout: () => sdk.logout(),
  };
}

export type ApiClient = ReturnType<typeof createClient>;
