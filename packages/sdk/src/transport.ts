/**
 * The fetch every request goes through: attaches the bearer token (renewing it first when due),
 * retries once with a renewed token after a 401, adds an idempotency key to the operations that
 * take one, and retries network errors of repeatable requests with the same key.
 */
import type { TokenSource } from './auth.js';
import { SvcApiError } from './errors.js';
import { IDEMPOTENT_OPERATIONS } from './generated/operations.js';

/** Routes that take no bearer token (and whose 401 is an answer, not an expired token). */
const PUBLIC_AUTH = /^\/api\/v1\/auth\/(api-token|login|refresh|register)(\/|$)/;

const IDEMPOTENT: { method: string; pattern: RegExp }[] = IDEMPOTENT_OPERATIONS.map(([method, path]) => ({
  method,
  pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** True when `method path` accepts an `X-Idempotency-Key` header. */
export const takesIdempotencyKey = (method: string, pathname: string): boolean =>
  IDEMPOTENT.some((o) => o.method === method.toUpperCase() && o.pattern.test(pathname));

const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export interface TransportOptions {
  fetch: (input: Request) => Promise<Response>;
  auth: TokenSource | null;
  /** Network-error retries of a repeatable request (default 2). */
  maxNetworkRetries: number;
  randomUUID: () => string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createTransport(o: TransportOptions): (request: Request) => Promise<Response> {
  async function sendWithRetries(template: Request, token: string | null): Promise<Response> {
    const repeatable = REPEATABLE_METHODS.has(template.method) || template.headers.has('x-idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const req = template.clone();
      if (token) req.headers.set('authorization', `Bearer ${token}`);
      try {
        return await o.fetch(req);
      } catch (err) {
        // fetch rejects with a TypeError for network failures; anything else is not ours to retry.
        if (!(err instanceof TypeError) || !repeatable || attempt >= o.maxNetworkRetries) throw err;
        await sleep(200 * 2 ** attempt);
      }
    }
  }

  return async (request) => {
    const { pathname } = new URL(request.url);
    if (takesIdempotencyKey(request.method, pathname) && !request.headers.has('x-idempotency-key'))
      request.headers.set('x-idempotency-key', o.randomUUID());
    const managed = o.auth !== null && !PUBLIC_AUTH.test(pathname) && !request.headers.has('authorization');
    const token = managed ? await o.auth!.current() : null;
    // An unsent copy: the body of `request` can be read only once.
    const template = request.clone();
    const res = await sendWithRetries(template, token);
    if (res.status !== 401 || !token) return res;
    let renewed: string | null;
    try {
      renewed = await o.auth!.renewAfter401(token);
    } catch (err) {
      // A refused renewal (revoked session, disabled credential): the caller gets the 401 itself.
      if (err instanceof SvcApiError) return res;
      throw err;
    }
    if (!renewed) return res;
    await res.body?.cancel();
    return sendWithRetries(template, renewed);
  };
}
