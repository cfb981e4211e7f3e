/**
 * The API credential session of the developer commands (`svc listen`, `svc trigger`): reads
 * SVC_API_URL, SVC_API_KEY and SVC_API_SECRET (as printed by `svc sandbox bootstrap`, or the flags
 * --api-url, --api-key, --api-secret), exchanges them at POST /auth/api-token and exchanges again
 * after a 401.
 */
import { flag, serviceUrl } from './args';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what} answered ${status}: ${body.slice(0, 300)}`);
  }
}

export interface ApiSession {
  /** e.g. http://localhost:8000/api/v1 */
  apiUrl: string;
  /** A current access token (exchanged when needed). */
  token(renew?: boolean): Promise<string>;
  /** A JSON call; throws ApiError for a status outside `ok` (default 2xx). */
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    opts?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<T>;
}

export function apiSessionFromEnv(args: string[], port: number): ApiSession {
  const apiUrl = (
    flag(args, 'api-url') ??
    process.env.SVC_API_URL ??
    `${serviceUrl(args, port)}/api/v1`
  ).replace(/\/+$/, '');
  const apiKey = flag(args, 'api-key') ?? process.env.SVC_API_KEY;
  const apiSecret = flag(args, 'api-secret') ?? process.env.SVC_API_SECRET;
  if (!apiKey || !apiSecret)
    throw new Error(
      'needs an API credential: set SVC_API_KEY and SVC_API_SECRET (eval "$(npx svc sandbox bootstrap)") or pass --api-key and --api-secret',
    );
  let current: Promise<string> | null = null;
  const exchange = async () => {
    const res = await fetch(`${apiUrl}/auth/api-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: apiKey, api_secret: apiSecret }),
    });
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, text, 'POST /auth/api-token');
    return (JSON.parse(text) as { access_token: string }).access_token;
  };
  const token = (renew = false) => {
    if (renew || !current)
      current = exchange().catch((err) => {
        current = null;
        throw err;
      });
    return current;
  };
  const call: ApiSession['call'] = async (method, path, opts = {}) => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${await token(attempt > 0)}`,
          ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...opts.headers,
        },
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      });
      const text = await res.text();
      if (res.status === 401 && attempt === 0) continue;
      if (!res.ok) throw new ApiError(res.status, text, `${method} ${path}`);
      return (text ? JSON.parse(text) : {}) as never;
    }
  };
  return { apiUrl, token, call };
}
