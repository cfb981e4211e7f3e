/**
 * Where the bearer token comes from: an API credential (exchanged at POST /auth/api-token and
 * renewed shortly before it expires) or a dashboard session (access + refresh token, rotated at
 * POST /auth/refresh). Renewals are single-flight: concurrent requests share one exchange.
 */
import { SvcApiError } from './errors.js';

export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
}

export interface TokenSource {
  /** A token to send now (renewed first when it expires soon); null when there is none. */
  current(): Promise<string | null>;
  /** After a 401 for `used`: renews once (shared by concurrent callers); null when it cannot. */
  renewAfter401(used: string): Promise<string | null>;
}

export interface AuthTransport {
  baseUrl: string;
  fetch: (input: Request) => Promise<Response>;
  /** Milliseconds since the epoch (a test can run the SDK on a manual clock). */
  now: () => number;
}

/** Runs `fn` once for any number of concurrent callers. */
export function singleFlight<T>(fn: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    inFlight ??= fn().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}

/** Renew when less than a tenth of the lifetime (at most 60 s) is left. */
const renewalMargin = (lifetimeMs: number) => Math.min(60_000, lifetimeMs / 10);

export async function postJson(t: AuthTransport, path: string, body: unknown, token?: string) {
  const res = await t.fetch(
    new Request(`${t.baseUrl}/api/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }),
  );
  if (!res.ok) throw await SvcApiError.fromResponse(res, 'POST');
  return (await res.json()) as Record<string, unknown>;
}

/** The `exp` claim of a JWT in milliseconds, or null (no verification: the server does that). */
export function jwtExpiry(token: string): number | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const json = atob(
      part
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(part.length / 4) * 4, '='),
    );
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
}

export class ApiCredentialAuth implements TokenSource {
  private token: { value: string; renewAt: number } | null = null;
  /** Exchanges made so far (visible for monitoring and tests). */
  exchanges = 0;

  constructor(
    private readonly t: AuthTransport,
    private readonly apiKey: string,
    private readonly apiSecret: string,
  ) {}

  private readonly exchange = singleFlight(async () => {
    const body = await postJson(this.t, '/auth/api-token', {
      api_key: this.apiKey,
      api_secret: this.apiSecret,
    });
    this.exchanges++;
    const lifetime = Number(body.expires_in) * 1000;
    const value = String(body.access_token);
    this.token = { value, renewAt: this.t.now() + lifetime - renewalMargin(lifetime) };
    return value;
  });

  async current(): Promise<string> {
    if (this.token && this.t.now() < this.token.renewAt) return this.token.value;
    return this.exchange();
  }

  async renewAfter401(used: string): Promise<string> {
    // Another request may already have renewed it.
    if (this.token && this.token.value !== used) return this.token.value;
    this.token = null;
    return this.exchange();
  }
}

export class SessionAuth implements TokenSource {
  private tokens: (SessionTokens & { renewAt: number | null }) | null = null;

  constructor(
    private readonly t: AuthTransport,
    initial: Partial<SessionTokens>,
    private readonly onTokens?: (tokens: SessionTokens | null) => void,
  ) {
    if (initial.accessToken && initial.refreshToken)
      this.tokens = this.withExpiry({ accessToken: initial.accessToken, refreshToken: initial.refreshToken });
  }

  private withExpiry(p: SessionTokens) {
    const exp = jwtExpiry(p.accessToken);
    const lifetime = exp === null ? 0 : exp - this.t.now();
    return { ...p, renewAt: exp === null ? null : exp - renewalMargin(Math.max(0, lifetime)) };
  }

  /** Stores a new pair (after login, OTP or refresh) and tells `onTokens`. */
  set(pair: SessionTokens | null): void {
    this.tokens = pair ? this.withExpiry(pair) : null;
    this.onTokens?.(pair ? { accessToken: pair.accessToken, refreshToken: pair.refreshToken } : null);
  }

  get(): SessionTokens | null {
    return this.tokens
      ? { accessToken: this.tokens.accessToken, refreshToken: this.tokens.refreshToken }
      : null;
  }

  private readonly rotate = singleFlight(async () => {
    const refreshToken = this.tokens?.refreshToken;
    if (!refreshToken) return null;
    try {
      const body = await postJson(this.t, '/auth/refresh', { refresh_token: refreshToken });
      this.set({ accessToken: String(body.access_token), refreshToken: String(body.refresh_token) });
      return String(body.access_token);
    } catch (err) {
      // A refused refresh token ends the session; a network error keeps it for the next try.
      if (err instanceof SvcApiError && err.status >= 400 && err.status < 500) this.set(null);
      throw err;
    }
  });

  async current(): Promise<string | null> {
    if (!this.tokens) return null;
    if (this.tokens.renewAt === null || this.t.now() < this.tokens.renewAt) return this.tokens.accessToken;
    return this.rotate();
  }

  async renewAfter401(used: string): Promise<string | null> {
    if (!this.tokens) return null;
    if (this.tokens.accessToken !== used) return this.tokens.accessToken;
    return this.rotate();
  }
}
