/**
 * TRP's three POSTs (transfer inquiry, inquiry resolution, transfer confirmation) through the shared
 * upstream client (deadline, breaker, `svc_upstream_*` metrics; headers and bodies never logged: they
 * carry IVMS personal data). TRP names its counterparties by absolute URLs (an inquiry endpoint, the
 * callbacks each side hands the other), so there is one upstream per counterparty origin, each with
 * its own breaker. Every request carries `api-version` and a `request-identifier` that is the same on
 * every retry of one message (a UUIDv5 of the message's key, e.g. `<transfer>:inquiry`), so a peer
 * recognises a replay (docs/vendors/trp.md, "Headers"). Retries are not done here: a delivery the counterparty could not
 * take is tried again by the travel rule's dispatch job, after the configured waits.
 */

import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import { v5 as uuidv5 } from 'uuid';
import { Upstream, UpstreamError } from '../../../platform/upstream';
import { TravelRuleProviderError } from '../port';
import type { TrpConfig } from './config';
import { TRP_API_VERSION } from './mapping';

/** Namespace of our request identifiers (UUIDv5 of `<message key>`). */
const REQUEST_ID_NAMESPACE = '1b3f5f0e-6a53-4c47-9d0c-52d1a4a3e6b1';

/** The `request-identifier` of the message `key` (the same on every retry). */
export const requestIdentifier = (key: string) => uuidv5(key, REQUEST_ID_NAMESPACE);

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
   * refusing the message (not retryable). `key` names the message (its request-identifier).
   * Returns the answer's body text.
   */
  async post(
    operation: 'inquiry' | 'resolution' | 'confirmation',
    url: string,
    json: string,
    key: string,
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
          'request-identifier': requestIdentifier(key),
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
