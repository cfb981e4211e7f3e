/**
 * The Sumsub provider: its definition (SVC_VERIFICATION_PROVIDER=sumsub, listed in
 * src/providers/registry.ts), and the factory building the adapter over one resilient client.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { defineProvider, type ProviderContext } from '../../definition';
import { SumsubVerificationProvider } from './adapter';
import { SumsubClient } from './client';
import { readSumsubConfig, type SumsubConfig } from './config';

export function createSumsub(
  config: SumsubConfig,
  runtime: { metrics: Registry; log: FastifyBaseLogger },
): SumsubVerificationProvider {
  return new SumsubVerificationProvider(new SumsubClient(config, runtime), config, undefined, runtime.log);
}

export const sumsubProvider = defineProvider({
  kind: 'verification',
  name: 'sumsub',
  readConfig: readSumsubConfig,
  create: (ctx: ProviderContext<SumsubConfig>) => createSumsub(ctx.settings, ctx),
});
