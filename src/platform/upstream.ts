/**
 * The one HTTP client for a vendor's API (payment network, verification provider, …): a deadline
 * on every attempt, retries with full-jitter backoff only for requests the caller marks safe to
 * repeat, the vendor's 429/503 `Retry-After` respected, and a circuit breaker so an outage answers
 * at once instead of piling requests up. Metrics per operation; headers and bodies are never logged
 * (they carry credentials and personal data). See docs/platform.md, "Upstream calls".
 *
 * The breaker is per process: it protects this node's requests and its view of the vendor. That is
 * the intended scope (a node that cannot reach the vendor should fail fast even if others can).
 */
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { Agent, type Dispatcher } from 'undici';

export interface UpstreamOptions {
  /** Metric label, e.g. `tokenio`. */
  name: string;
  baseUrl: string;
  /** Deadline of one attempt: connect, headers and the whole body. */
  timeoutMs: number;
  /** Total attempts for `retrySafe` requests (1 = never retry). */
  maxAttempts: number;
  /** Base of the full-jitter exponential backoff between attempts (default 200 ms). */
  backoffMs?: number;
  /** A `Retry-After` longer than this is not waited for: the call fails with it (default 5 s). */
  maxRetryAfterMs?: number;
  breaker: { failureThreshold: number; cooldownMs: number };
  metrics: Registry;
  log: FastifyBaseLogger;
  now?: () => number;
  /** Waits between attempts (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  dispatcher?: Dispatcher;
  /** Largest response body read (default 10 MiB); a longer one fails as `bad_response`. */
  maxBodyBytes?: number;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface UpstreamRequest {
  /** Metric label, e.g. `payments.initiate`. */
  operation: string;
  method: HttpMethod;
  /** Appended to the base URL, query string included. */
  path: string;
  headers?: Record<string, string>;
  /** The raw bytes sent (the ones a signature covers). */
  body?: string | Buffer;
  /** True only when repeating cannot double money or state: reads, creations keyed by the vendor's idempotency reference. */
  retrySafe: boolean;
  /** Called before every attempt, so timestamps and signatures are fresh; returns extra headers. */
  sign?: (r: { method: string; path: string; body: Buffer | undefined }) => Record<string, string>;
}

export interface UpstreamResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export type UpstreamErrorKind =
  | 'circuit_open'
  | 'timeout'
  | 'network'
  | 'server'
  | 'rate_limited'
  | 'bad_response';

export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamErrorKind,
    readonly upstream: string,
    readonly operation: string,
    detail: { status?: number; retryAfterMs?: number; cause?: unknown; response?: UpstreamResponse } = {},
  ) {
    super(
      `${upstream} ${operation}: ${kind}${detail.status ? ` (HTTP ${detail.status})` : ''}`,
      detail.cause ? { cause: detail.cause } : undefined,
    );
    this.name = 'UpstreamError';
    this.status = detail.status;
    this.retryAfterMs = detail.retryAfterMs;
    // Not enumerable: the body may carry the vendor's details (or personal data), and loggers
    // (pino's err serializer) and JSON.stringify copy enumerable fields only.
    Object.defineProperty(this, 'response', {
      value: detail.response,
      enumerable: false,
      writable: false,
      configurable: false,
    });
  }
  readonly status?: number;
  readonly retryAfterMs?: number;
  /**
   * The last answer when the upstream answered with an error status (5xx, 429): its body may say
   * more. Non-enumerable, so a logged error never writes the body.
   */
  declare readonly response?: UpstreamResponse;
}

export type BreakerState = 'closed' | 'open' | 'half_open';
const BREAKER_GAUGE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/** What one attempt came to: an answer to hand back, or a failure that may be retried. */
type Attempt =
  | { ok: true; response: UpstreamResponse }
  | {
      ok: false;
      kind: Exclude<UpstreamErrorKind, 'circuit_open'>;
      status?: number;
      retryAfterMs?: number;
      cause?: unknown;
      response?: UpstreamResponse;
    };

interface UpstreamMetrics {
  duration: Histogram<'upstream' | 'operation' | 'outcome'>;
  errors: Counter<'upstream' | 'operation' | 'kind'>;
  breaker: Gauge<'upstream'>;
}

/** The upstream metrics of a registry, created once per registry (every vendor client shares them). */
function upstreamMetrics(registry: Registry): UpstreamMetrics {
  const existing = registry.getSingleMetric('svc_upstream_request_duration_seconds');
  if (existing) {
    return {
      duration: existing as UpstreamMetrics['duration'],
      errors: registry.getSingleMetric('svc_upstream_errors_total') as UpstreamMetrics['errors'],
      breaker: registry.getSingleMetric('svc_upstream_breaker_state') as UpstreamMetrics['breaker'],
    };
  }
  return {
    duration: new Histogram({
      name: 'svc_upstream_request_duration_seconds',
      help: 'Latency of each attempt of a call to a vendor API, by outcome',
      labelNames: ['upstream', 'operation', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'svc_upstream_errors_total',
      help: 'Calls to a vendor API that failed, by kind (after the attempts allowed)',
      labelNames: ['upstream', 'operation', 'kind'],
      registers: [registry],
    }),
    breaker: new Gauge({
      name: 'svc_upstream_breaker_state',
      help: 'Circuit breaker of a vendor API: 0 closed, 1 half-open, 2 open',
      labelNames: ['upstream'],
      registers: [registry],
    }),
  };
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Upstream {
  private readonly opts: Required<Omit<UpstreamOptions, 'dispatcher'>> & { dispatcher: Dispatcher };
  private readonly metrics: UpstreamMetrics;
  private readonly origin: string;
  private readonly basePath: string;
  private state: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private openedAt = 0;
  private probeInFlight = false;

  constructor(opts: UpstreamOptions) {
    this.opts = {
      backoffMs: 200,
      maxRetryAfterMs: 5000,
      now: Date.now,
      sleep: defaultSleep,
      random: Math.random,
      maxBodyBytes: 10 * 1024 * 1024,
      ...opts,
      baseUrl: opts.baseUrl.replace(/\/+$/, ''),
      dispatcher:
        opts.dispatcher ??
        new Agent({ keepAliveTimeout: 10_000, connections: 64, connect: { timeout: opts.timeoutMs } }),
    };
    const base = new URL(this.opts.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.metrics = upstreamMetrics(opts.metrics);
    this.metrics.breaker.set({ upstream: opts.name }, 0);
  }

  breakerState(): BreakerState {
    if (this.state === 'open' && this.opts.now() - this.openedAt >= this.opts.breaker.cooldownMs)
      return 'half_open';
    return this.state;
  }

  async request(req: UpstreamRequest): Promise<UpstreamResponse> {
    const attempts = req.retrySafe ? Math.max(1, this.opts.maxAttempts) : 1;
    const body =
      req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    let last: Extract<Attempt, { ok: false }> | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const probe = this.admit(req.operation);
      const result = await this.attempt(req, body);
      this.settle(result, probe);
      if (result.ok) return result.response;
      last = result;
      if (attempt === attempts) break;
      const wait = this.delayBefore(attempt, result);
      if (wait === null) break;
      await this.opts.sleep(wait);
    }
    const failure = last as Extract<Attempt, { ok: false }>;
    this.metrics.errors.inc({ upstream: this.opts.name, operation: req.operation, kind: failure.kind });
    this.opts.log.warn(
      { upstream: this.opts.name, operation: req.operation, kind: failure.kind, status: failure.status },
      'upstream call failed',
    );
    throw new UpstreamError(failure.kind, this.opts.name, req.operation, failure);
  }

  /** Lets an attempt through the breaker, or fails at once; returns whether it is the half-open probe. */
  private admit(operation: string): boolean {
    const state = this.breakerState();
    if (state === 'closed') return false;
    if (state === 'half_open' && !this.probeInFlight) {
      this.probeInFlight = true;
      this.setState('half_open');
      return true;
    }
    this.metrics.errors.inc({ upstream: this.opts.name, operation, kind: 'circuit_open' });
    throw new UpstreamError('circuit_open', this.opts.name, operation);
  }

  /** Counts an attempt's outcome: an answer closes the breaker, a failure may open it. */
  private settle(result: Attempt, probe: boolean): void {
    if (probe) this.probeInFlight = false;
    // A 429 is the vendor answering that we go too fast, not an outage: it neither counts towards
    // opening the breaker nor closes it (a half-open breaker probes again on the next call).
    if (!result.ok && result.kind === 'rate_limited') return;
    const answered = result.ok || result.kind === 'bad_response';
    if (answered) {
      this.consecutiveFailures = 0;
      if (this.state !== 'closed') this.setState('closed');
      return;
    }
    this.consecutiveFailures++;
    if (probe || this.consecutiveFailures >= this.opts.breaker.failureThreshold) {
      this.openedAt = this.opts.now();
      this.setState('open');
    }
  }

  private setState(state: BreakerState): void {
    if (state !== this.state) {
      this.opts.log.warn({ upstream: this.opts.name, breaker: state }, 'upstream circuit breaker changed');
    }
    this.state = state;
    this.metrics.breaker.set({ upstream: this.opts.name }, BREAKER_GAUGE[state]);
  }

  /** How long to wait before the next attempt; null when the failure must not be retried. */
  private delayBefore(attempt: number, failure: Extract<Attempt, { ok: false }>): number | null {
    if (failure.kind === 'bad_response') return null;
    if (failure.retryAfterMs !== undefined) {
      return failure.retryAfterMs > this.opts.maxRetryAfterMs ? null : failure.retryAfterMs;
    }
    const cap = this.opts.backoffMs * 2 ** (attempt - 1);
    return Math.floor(this.opts.random() * cap);
  }

  private async attempt(req: UpstreamRequest, body: Buffer | undefined): Promise<Attempt> {
    const started = performance.now();
    const observe = (outcome: string) =>
      this.metrics.duration.observe(
        { upstream: this.opts.name, operation: req.operation, outcome },
        (performance.now() - started) / 1000,
      );
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...req.headers,
      ...req.sign?.({ method: req.method, path: req.path, body }),
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.opts.timeoutMs);
    try {
      const res = await this.opts.dispatcher.request({
        origin: this.origin,
        path: `${this.basePath}${req.path.startsWith('/') ? req.path : `/${req.path}`}`,
        method: req.method,
        headers,
        body,
        signal: controller.signal,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > this.opts.maxBodyBytes) {
          res.body.destroy();
          observe('bad_response');
          return { ok: false, kind: 'bad_response', status: res.statusCode };
        }
        chunks.push(chunk as Buffer);
      }
      const response = toResponse(
        res.statusCode,
        res.headers,
        Buffer.concat(chunks),
        this.opts.name,
        req.operation,
      );
      const status = res.statusCode;
      if (status === 429 || status === 503) {
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.opts.now());
        observe(status === 429 ? 'rate_limited' : 'server_error');
        return {
          ok: false,
          kind: status === 429 ? 'rate_limited' : 'server',
          status,
          retryAfterMs,
          response,
        };
      }
      if (status >= 500 || status === 408) {
        observe('server_error');
        return { ok: false, kind: 'server', status, response };
      }
      observe(status < 400 ? 'ok' : 'client_error');
      return { ok: true, response };
    } catch (cause) {
      const kind = controller.signal.aborted ? 'timeout' : 'network';
      observe(kind);
      return { ok: false, kind, cause };
    } finally {
      clearTimeout(timer);
    }
  }
}

function toResponse(
  status: number,
  raw: Record<string, string | string[] | undefined>,
  body: Buffer,
  upstream: string,
  operation: string,
): UpstreamResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    status,
    headers,
    body,
    text: () => body.toString('utf8'),
    json<T>() {
      try {
        return JSON.parse(body.toString('utf8')) as T;
      } catch (cause) {
        throw new UpstreamError('bad_response', upstream, operation, { status, cause });
      }
    },
  };
}
