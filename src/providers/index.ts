/**
 * Builds each kind's adapter from the configuration's choice (Config.providers): the chosen
 * definition's factory (src/providers/registry.ts, or a definition a test or tool adds), or the
 * kind's unconfigured adapter for `none`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../config';
import type { Providers } from '../deps';
import type { Secrets } from '../shared/crypto';
import { UnconfiguredBank } from './bank/unconfigured';
import type { AnyProviderDefinition, ProviderKind } from './definition';
import { UnconfiguredEsign } from './esign/unconfigured';
import { providerDefinitions } from './registry';
import { sanctionsProvider } from './sanctions/index';
import { UnconfiguredScreeningProvider } from './screening/unconfigured';
import { SubTppSimulator } from './subtpp/simulator';
import { UnconfiguredTravelRuleNetwork } from './travel-rule/unconfigured';
import { UnconfiguredVerificationProvider } from './verification/unconfigured';

/** What real adapters need from the running service: where their metrics go, and the log. */
export interface ProviderRuntime {
  metrics: Registry;
  log: FastifyBaseLogger;
}

export function createProviders(
  config: Config,
  secrets: Secrets,
  runtime: ProviderRuntime,
  extra: readonly AnyProviderDefinition[] = [],
): Providers {
  const definitions = [...providerDefinitions, ...extra];
  const chosen = (kind: ProviderKind) => {
    const { name, settings } = config.providers[kind];
    const definition = definitions.find((d) => d.kind === kind && d.name === name);
    return { definition, ctx: { settings, host: config, secrets, ...runtime } };
  };
  const b = chosen('bank');
  const v = chosen('verification');
  const s = chosen('screening');
  const t = chosen('travel-rule');
  const e = chosen('esign');
  const { bank, subTpp } =
    b.definition?.kind === 'bank'
      ? b.definition.create(b.ctx)
      : {
          bank: new UnconfiguredBank(),
          // Without a real network, opcos are activated by staff (admin approve) from this simulated registry.
          subTpp: new SubTppSimulator(secrets.hashKey),
        };
  return {
    bank,
    subTpp,
    verification:
      v.definition?.kind === 'verification'
        ? v.definition.create(v.ctx)
        : new UnconfiguredVerificationProvider(),
    screening:
      s.definition?.kind === 'screening' ? s.definition.create(s.ctx) : new UnconfiguredScreeningProvider(),
    travelRule:
      t.definition?.kind === 'travel-rule' ? t.definition.create(t.ctx) : new UnconfiguredTravelRuleNetwork(),
    esign: e.definition?.kind === 'esign' ? e.definition.create(e.ctx) : new UnconfiguredEsign(),
    sanctions: sanctionsProvider.create(config.sanctions, runtime),
  };
}
