/**
 * The one place the dashboard talks to the API (same shape as the typed SDK's createClient, so
 * switching to @svc/sdk is a change here only). The access token lives in this closure; the refresh
 * token is handed to `onTokens` for the session module to keep (see README, "Dashboard session").
 */

export interface Tokens {
  accessToken: string | null;
  refreshToken: string | null;
}

export class SvcApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(detail);
  }
}

export interface ClientOptions {
  baseUrl: string;
  accessToken?: string | null;
  refreshToken?: string | null;
  onTokens?: (tokens: Tokens) => void;
  /** Called when a 401 cannot be cured by a refresh; resolves once the user has signed in again. */
  onSessionLost?: () => Promise<void>;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** false for the public endpoints (login, register, refresh): their 401 is an answer, not an expiry. */
  auth?: boolean;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
}

export interface MfaPending {
  token_type: 'otp_pending';
  challenge_token: string;
  requires_mfa: true;
  allowed_mfa_methods: ('email' | 'totp')[];
  preferred_mfa_method: 'email' | 'totp';
}

/** The API's own message: `{detail}` as is; a 422 list as "field: message" lines. */
function detailOf(status: number, body: unknown): string {
  const d = (body as { detail?: unknown } | null)?.detail;
  if (typeof d === 'string') return d;
  if (Array.isArray(d))
    return d
      .map((e: { loc?: unknown[]; msg?: string }) => {
        const field = (e.loc ?? []).filter((p) => p !== 'body').join('.');
        return field ? `${field}: ${e.msg}` : (e.msg ?? '');
      })
      .join('\n');
  return `Request failed with status ${status}`;
}

export const newIdempotencyKey = () => crypto.randomUUID();

export function createClient(opts: ClientOptions) {
  const f = opts.fetch ?? fetch.bind(globalThis);
  let access = opts.accessToken ?? null;
  let refresh = opts.refreshToken ?? null;
  let refreshing: Promise<boolean> | null = null;

  function setTokens(t: Tokens) {
    access = t.accessToken;
    refresh = t.refreshToken;
    opts.onTokens?.({ accessToken: access, refreshToken: refresh });
  }

  async function send(method: string, path: string, o: RequestOptions): Promise<Response> {
    const url = new URL(`${opts.baseUrl}${path}`, window.location.origin);
    for (const [k, v] of Object.entries(o.query ?? {}))
      if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.auth !== false && access) headers.authorization = `Bearer ${access}`;
    if (o.idempotencyKey) headers['x-idempotency-key'] = o.idempotencyKey;
    return f(url, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
  }

  /** One refresh at a time: a rotated refresh token presented twice would revoke the session. */
  function refreshTokens(): Promise<boolean> {
    refreshing ??= (async () => {
      if (!refresh) return false;
      const res = await send('POST', '/auth/refresh', { body: { refresh_token: refresh }, auth: false });
      if (!res.ok) {
        setTokens({ accessToken: null, refreshToken: null });
        return false;
      }
      const pair = (await res.json()) as TokenPair;
      setTokens({ accessToken: pair.access_token, refreshToken: pair.refresh_token });
      return true;
    })().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  async function request<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    let res = await send(method, path, o);
    if (res.status === 401 && o.auth !== false) {
      if (await refreshTokens()) res = await send(method, path, o);
      else if (opts.onSessionLost) {
        await opts.onSessionLost();
        res = await send(method, path, o);
      }
    }
    const text = await res.text();
    const body = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new SvcApiError(res.status, detailOf(res.status, body), body);
    return body as T;
  }

  return {
    request,
    get: <T>(path: string, o?: RequestOptions) => request<T>('GET', path, o),
    post: <T>(path: string, body?: unknown, o?: RequestOptions) => request<T>('POST', path, { ...o, body }),
    put: <T>(path: string, body: unknown, o?: RequestOptions) => request<T>('PUT', path, { ...o, body }),
    patch: <T>(path: string, body: unknown, o?: RequestOptions) => request<T>('PATCH', path, { ...o, body }),
    del: <T>(path: string, o?: RequestOptions) => request<T>('DELETE', path, o),
    setTokens,
    refresh: refreshTokens,
    hasSession: () => access !== null || refresh !== null,

    /** POST /auth/login: tokens, or an MFA challenge to finish with verifyOtp. */
    async login(email: string, password: string): Promise<MfaPending | null> {
      const r = await request<TokenPair | MfaPending>('POST', '/auth/login', {
        body: { client_email: email, password },
        auth: false,
      });
      if (r.token_type === 'otp_pending') return r;
      setTokens({ accessToken: r.access_token, refreshToken: r.refresh_token });
      return null;
    },
    async verifyOtp(challengeToken: string, code: string, method: 'email' | 'totp') {
      const r = await request<TokenPair>('POST', '/auth/login/verify-otp', {
        body: { challenge_token: challengeToken, otp_code: code, method },
        auth: false,
      });
      setTokens({ accessToken: r.access_token, refreshToken: r.refresh_token });
    },
    async logout() {
      try {
        if (access) await send('POST', '/auth/logout', { body: refresh ? { refresh_token: refresh } : {} });
      } finally {
        setTokens({ accessToken: null, refreshToken: null });
      }
    },
  };
}

export type ApiClient = ReturnType<typeof createClient>;
