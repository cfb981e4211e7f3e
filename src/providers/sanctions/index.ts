/**
 * The sanctions-lists provider: kind `sanctions`, the official lists (OFAC, EU, UK, UN) and, on
 * sandbox deployments, the sandbox list. Its settings are read with the configuration
 * (`readConfig`, SVC_SANCTIONS_*) and `create` builds the adapter for the service's runtime.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { OfficialSanctionsLists } from './adapter';
import { readSanctionsConfig, type SanctionsConfig } from './config';
import type { SanctionsLists } from './port';

export const sanctionsProvider = {
  kind: 'sanctions',
  name: 'official-lists',
  readConfig: readSanctionsConfig,
  create(config: SanctionsConfig, runtime: { metrics: Registry; log: FastifyBaseLogger }): SanctionsLists {
    return new OfficialSanctionsLists(config, runtime);
  },
} as const;

export type { SanctionsConfig } from './config';
export * from './port';
