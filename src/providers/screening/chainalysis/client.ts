/**
 * Chainalysis's two APIs through the shared upstream client (deadline, retries of these safe GETs,
 * 429/503 `Retry-After` respected, breaker, `svc_upstream_*` metrics; no header or body is logged):
 *
 * - Entity Risking API (`upstream: chainalysis`): `GET {base}/v2/entities/{address}` with the key in the
 *   `Token` header. Since December 2024 the GET alone returns the assessment; the POST registration
 *   is optional (https://docs.chainalysis.com/api/address-screening/whats-new).
 * - Sanctions API (`upstream: chainalysis_sanctions`): `GET {base}/address/{address}` with the key in
 *   `X-API-Key`.
 *
 * A 2xx answer is returned; any other 4xx becomes ChainalysisApiError (final: retrying cannot change
 * it). Outages (5xx, timeouts, network, breaker open) and 429s are UpstreamError, which the adapter
 * turns into "ask again later".
 */
import type { FastifyBaseLogger } from 'fastify';
import { Upstream, type UpstreamOptions } from '../../../platform/upstream';
import type { ChainalysisApiSettings, ChainalysisConfig } from './config';
import type { ChainalysisEntity, ChainalysisSanctionsAnswer } from './mapping';

export class ChainalysisApiError extends Error {
  constructor(
    readonly upstream: string,
    readonly operation: string,
    readonly status: number,
  ) {
    super(`${upstream} ${operation}: HTTP ${status}`);
    this.name = 'ChainalysisApiError';
  }
}

type Runtime = Pick<UpstreamOptions, 'metrics' | 'log'> & Partial<UpstreamOptions>;

abstract class ChainalysisHttp {
  protected readonly upstream: Upstream;

  constructor(
    protected readonly name: string,
    protected readonly api: ChainalysisApiSettings,
    config: Pick<
      ChainalysisConfig,
      'timeoutMs' | 'maxAttempts' | 'maxRetryAfterMs' | 'breakerFailures' | 'breakerCooldownMs'
    >,
    runtime: Runtime,
    protected readonly log: FastifyBaseLogger = runtime.log,
  ) {
    this.upstream = new Upstream({
      name,
      baseUrl: api.baseUrl,
      timeoutMs: config.timeoutMs,
      maxAttempts: config.maxAttempts,
      maxRetryAfterMs: config.maxRetryAfterMs,
      breaker: { failureThreshold: config.breakerFailures, cooldownMs: config.breakerCooldownMs },
      ...runtime,
    });
  }

  protected async send<T>(
    operation: string,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    json?: unknown,
  ): Promise<T> {
    const res = await this.upstream.request({
      operation,
      method,
      path,
      headers: json === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
      // Reads, and a registration of the same address again, cannot change anything twice.
      retrySafe: true,
    });
    if (res.status >= 400) {
      this.log.debug({ upstream: this.name, operation, status: res.status }, 'chainalysis refused the call');
      throw new ChainalysisApiError(this.name, operation, res.status);
    }
    return res.json<T>();
  }
}

export class ChainalysisRiskClient extends ChainalysisHttp {
  constructor(api: ChainalysisApiSettings, config: ChainalysisConfig, runtime: Runtime) {
    super('chainalysis', api, config, runtime);
  }

  /** GET /v2/entities/{address}: the address's risk assessment. */
  entity(address: string): Promise<ChainalysisEntity> {
    return this.send('entities.get', 'GET', `/v2/entities/${encodeURIComponent(address)}`, {
      token: this.api.apiKey,
    });
  }

  /** POST /v2/entities `{address}`: the registration older accounts need before the GET (optional since Dec 2024). */
  async register(address: string): Promise<void> {
    await this.send('entities.register', 'POST', '/v2/entities', { token: this.api.apiKey }, { address });
  }
}

export class ChainalysisSanctionsClient extends ChainalysisHttp {
  constructor(api: ChainalysisApiSettings, config: ChainalysisConfig, runtime: Runtime) {
    super('chainalysis_sanctions', api, config, runtime);
  }

  /**
   * GET /address/{address}: the sanctions designations of the address (empty when not listed).
   * `operation` names the call in the metrics: `sanctions.address`, or `sanctions.address_eip55` for
   * the second ask of an EVM address in its checksummed spelling (see the adapter).
   */
  address(address: string, operation = 'sanctions.address'): Promise<ChainalysisSanctionsAnswer> {
    return this.send(operation, 'GET', `/address/${encodeURIComponent(address)}`, {
      'x-api-key': this.api.apiKey,
    });
  }
}
