/**
 * The Token.io provider: its definition (below), and the factory building the adapters (payment
 * network and Sub-TPP registry) over one resilient client.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { Upstream } from '../../../platform/upstream';
import { defineProvider, type ProviderContext } from '../../definition';
import { TokenioBank } from './adapter';
import { requestSigner } from './auth';
import { TokenioClient } from './client';
import { readTokenioConfig, type TokenioConfig } from './config';
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

/** The Token.io bank provider (SVC_BANK_PROVIDER=tokenio), listed in src/providers/registry.ts. */
export const tokenioProvider = defineProvider({
  kind: 'bank',
  name: 'tokenio',
  readConfig: readTokenioConfig,
  create: (ctx: ProviderContext<TokenioConfig>) => createTokenio(ctx.settings, ctx.host.publicUrl, ctx),
});
