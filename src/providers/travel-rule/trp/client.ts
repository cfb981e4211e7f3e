/**
 * TRP's three POSTs (transfer inquiry, inquiry resolution, transfer confirmation) through the shared
 * upstream client (deadline, breaker, `svc_upstream_*` metrics; headers and bodies never logged: they
 * carry IVMS personal data). TRP names its counterparties by absolute URLs (an inquiry endpoint, the
 * callbacks each side hands the other), so there is one upstream per counterparty origin, each with
 * its own breaker. Every request carries `api-version` and a fresh UUID `request-identifier`
 * (docs/vendors/trp.md, "Headers"). Retries are not done here: a delivery the counterparty could not
 * take is tried again by the travel rule's dispatch job, after the configured waits.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import { Upstream, UpstreamError } from '../../../platform/upstream';
import { TravelRuleProviderError } from '../port';
import type { TrpConfig } from './config';
import { TRP_API_VERSION } from './mapping';

export interface TrpRuntime {
  metrics: Registry;
  log: FastifyBaseLogger;
  dispatcher?: Dispatcher;
}

export class TrpClient {
  private readonly upstreams = new Map<string, Upstream>();

  constructor(
    private readonly config: Pick<TrpConfig, 'timeoutMs' | 'breakerFailures' | 'breakerCooldownMs'>,
    private readonly runtime: TrpRuntime,
  ) {}

  private upstreamFor(origin: string): Upstream {
    let u = this.upstreams.get(origin);
    if (!u) {
      u = new Upstream({
        name: 'trp',
        baseUrl: origin,
        timeoutMs: this.config.timeoutMs,
        maxAttempts: 1,
        breaker: { failureThreshold: this.config.breakerFailures, cooldownMs: this.config.breakerCooldownMs },
        metrics: this.runtime.metrics,
        log: this.runtime.log,
        ...(this.runtime.dispatcher ? { dispatcher: this.runtime.dispatcher } : {}),
      });
      this.upstreams.set(origin, u);
    }
    return u;
  }

  /**
   * POSTs `json` to the absolute `url`. A 2xx is delivered; an outage (down, timeout, 5xx, 429,
   * breaker open) is a retryable TravelRuleProviderError; any other answer is the counterparty
   * refusing the message (not retryable). Returns the answer's body text.
   */
  async post(
    operation: 'inquiry' | 'resolution' | 'confirmation',
    url: string,
    json: string,
  ): Promise<string> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new TravelRuleProviderError(`trp ${operation}: not a URL`);
    }
    try {
      const res = await this.upstreamFor(u.origin).request({
        operation,
        method: 'POST',
        path: `${u.pathname}${u.search}`,
        headers: {
          'content-type': 'application/json',
          'api-version': TRP_API_VERSION,
          'request-identifier': randomUUID(),
        },
        body: json,
        retrySafe: false,
      });
      if (res.status >= 200 && res.status < 300) return res.text();
      throw new TravelRuleProviderError(`trp ${operation}: HTTP ${res.status}`, { retryable: false });
    } catch (err) {
      if (err instanceof TravelRuleProviderError) throw err;
      if (err instanceof UpstreamError)
        throw new TravelRuleProviderError(`trp ${operation}: ${err.kind}`, {
          cause: err,
          retryable: err.kind !== 'bad_response',
        });
      throw new TravelRuleProviderError(`trp ${operation} failed`, { cause: err, retryable: true });
    }
  }
}
