/**
 * Sumsub's API through the shared upstream client (deadline, retries for safe calls, Retry-After,
 * breaker, metrics): every request signed with the app token (X-App-Token, X-App-Access-Ts,
 * X-App-Access-Sig = hex HMAC-SHA256 of ts + METHOD + path-with-query + body; docs/vendors/sumsub.md).
 * Sumsub's 4xx answers become SumsubApiError with its documented `{description, code, errorCode}`;
 * descriptions stay in logs at debug level only, never in merchant-facing errors. An outage (the
 * upstream client's `UpstreamError`) leaves this file as the port's `VerificationUnavailableError`.
 */
import { createHmac } from 'node:crypto';
import {
  Upstream,
  UpstreamError,
  type UpstreamOptions,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../../../platform/upstream';
import { VerificationUnavailableError } from '../port';
import type { SumsubConfig } from './config';

export class SumsubApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly errorCode: number | null,
  ) {
    super(`sumsub ${operation}: HTTP ${status}${errorCode ? ` (errorCode ${errorCode})` : ''}`);
    this.name = 'SumsubApiError';
  }
}

export interface SumsubCall {
  operation: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  retrySafe: boolean;
}

/** The app-token signature (reference/authentication). */
export function signSumsubRequest(
  secretKey: string,
  ts: string,
  method: string,
  path: string,
  body: Buffer | undefined,
): string {
  const h = createHmac('sha256', secretKey).update(ts + method.toUpperCase() + path);
  if (body) h.update(body);
  return h.digest('hex');
}

export class SumsubClient {
  private readonly upstream: Upstream;

  constructor(
    private readonly config: Pick<
      SumsubConfig,
      'apiUrl' | 'appToken' | 'secretKey' | 'timeoutMs' | 'maxAttempts'
    >,
    runtime: Pick<UpstreamOptions, 'metrics' | 'log'> & Partial<UpstreamOptions>,
  ) {
    this.upstream = new Upstream({
      name: 'sumsub',
      baseUrl: config.apiUrl,
      timeoutMs: config.timeoutMs,
      maxAttempts: config.maxAttempts,
      breaker: { failureThreshold: 5, cooldownMs: 30_000 },
      ...runtime,
    });
  }

  breakerState() {
    return this.upstream.breakerState();
  }

  /**
   * The raw answer (2xx or 404); other 4xx throw SumsubApiError, outages throw the port's
   * VerificationUnavailableError (the UpstreamError as its cause).
   */
  async send(call: SumsubCall): Promise<UpstreamResponse> {
    const body = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
    const res = await this.request({
      operation: call.operation,
      method: call.method,
      path: call.path,
      headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
      retrySafe: call.retrySafe,
      // Signed afresh before every attempt: the timestamp must be current.
      sign: (r) => {
        const ts = String(Math.floor(Date.now() / 1000));
        return {
          'x-app-token': this.config.appToken,
          'x-app-access-ts': ts,
          'x-app-access-sig': signSumsubRequest(this.config.secretKey, ts, r.method, r.path, r.body),
        };
      },
    });
    if (res.status >= 400 && res.status !== 404)
      throw new SumsubApiError(call.operation, res.status, errorCodeOf(res));
    return res;
  }

  private async request(req: UpstreamRequest): Promise<UpstreamResponse> {
    try {
      return await this.upstream.request(req);
    } catch (err) {
      if (err instanceof UpstreamError)
        throw new VerificationUnavailableError(`Sumsub ${req.operation}: ${err.kind}`, {
          cause: err,
          kind: err.kind,
        });
      throw err;
    }
  }

  /** JSON of a 2xx answer; null for 404. */
  async json<T>(call: SumsubCall): Promise<T | null> {
    const res = await this.send(call);
    if (res.status === 404) return null;
    return res.json<T>();
  }
}

function errorCodeOf(res: UpstreamResponse): number | null {
  try {
    const b = res.json<{ errorCode?: unknown }>();
    return typeof b.errorCode === 'number' ? b.errorCode : null;
  } catch {
    return null;
  }
}
