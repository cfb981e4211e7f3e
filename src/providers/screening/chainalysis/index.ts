/**
 * The Chainalysis screening providers (listed in src/providers/registry.ts):
 * `SVC_SCREENING_PROVIDER=chainalysis` (Entity Risking API, with the Sanctions API as fallback when
 * its key is set) and `SVC_SCREENING_PROVIDER=chainalysis-sanctions` (the free Sanctions API alone).
 * Two names over one adapter: the second is a deliberately weaker choice (sanctions only, a clean
 * answer is `unknown`), so a deployment says which one it runs.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { defineProvider, type ProviderContext } from '../../definition';
import { ChainalysisScreening } from './adapter';
import { ChainalysisRiskClient, ChainalysisSanctionsClient } from './client';
import { type ChainalysisConfig, readChainalysisConfig, readChainalysisSanctionsConfig } from './config';

export function createChainalysis(
  config: ChainalysisConfig,
  runtime: { metrics: Registry; log: FastifyBaseLogger },
): ChainalysisScreening {
  return new ChainalysisScreening(
    config.risk ? new ChainalysisRiskClient(config.risk, config, runtime) : null,
    config.sanctions ? new ChainalysisSanctionsClient(config.sanctions, config, runtime) : null,
    config,
    runtime.log,
  );
}

export const chainalysisProvider = defineProvider({
  kind: 'screening',
  name: 'chainalysis',
  readConfig: readChainalysisConfig,
  create: (ctx: ProviderContext<ChainalysisConfig>) => createChainalysis(ctx.settings, ctx),
});

export const chainalysisSanctionsProvider = defineProvider({
  kind: 'screening',
  name: 'chainalysis-sanctions',
  readConfig: readChainalysisSanctionsConfig,
  create: (ctx: ProviderContext<ChainalysisConfig>) => createChainalysis(ctx.settings, ctx),
});
