/** Builds the Token.io adapters (payment network and Sub-TPP registry) over one resilient client. */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { Upstream } from '../../../platform/upstream';
import { requestSigner } from './auth';
import { TokenioBank } from './bank';
import { TokenioClient } from './client';
import type { TokenioConfig } from './config';
import { TokenioSubTppNetwork } from './subtpp';

export function createTokenio(
  config: TokenioConfig,
  publicUrl: string,
  runtime: { metrics: Registry; log: FastifyBaseLogger },
): { bank: TokenioBank; subTpp: TokenioSubTppNetwork } {
  const upstream = new Upstream({
    name: 'tokenio',
    baseUrl: config.apiUrl,
    timeoutMs: config.timeoutMs,
    maxAttempts: config.maxAttempts,
    maxRetryAfterMs: config.maxRetryAfterMs,
    breaker: { failureThreshold: config.breakerFailures, cooldownMs: config.breakerCooldownMs },
    metrics: runtime.metrics,
    log: runtime.log,
  });
  // Token.io answers by then with the payment as it stands (reference: `request-timeout`), inside our deadline.
  const requestTimeoutSeconds = Math.max(1, Math.floor(config.timeoutMs / 1000) - 1);
  const client = new TokenioClient(
    upstream,
    requestSigner(config.auth, config.memberId, config.apiUrl),
    runtime.log,
    requestTimeoutSeconds,
    config.consent.collect === 'ours',
  );
  return {
    bank: new TokenioBank({ config, publicUrl, client, log: runtime.log }),
    subTpp: new TokenioSubTppNetwork(client),
  };
}
