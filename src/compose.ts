/**
 * The service's dependencies from their parts, the one way the server, the CLI, the tests and the
 * benches put them together: a fresh metrics registry, the providers the configuration selects
 * (registering their metrics there) and the app's event bus from the module manifests.
 */
import type { FastifyBaseLogger } from 'fastify';
import { Registry } from 'prom-client';
import type { Config } from './config';
import type { Database } from './db/client';
import type { Deps, Providers } from './deps';
import { createAppEvents } from './modules/index';
import type { AppSubscription } from './platform/module';
import type { AnyProviderDefinition } from './providers/definition';
import { createProviders } from './providers/index';
import type { Mailer } from './providers/mail/port';
import { type Clock, systemClock } from './shared/clock';
import type { Secrets } from './shared/crypto';

export interface DepsParts {
  config: Config;
  database: Database;
  secrets: Secrets;
  mailer: Mailer;
  log: FastifyBaseLogger;
  /** The system clock unless given (tests pass a manual one). */
  clock?: Clock;
  /** Replaces some of the configured providers (tests' fakes). */
  providers?: Partial<Providers>;
  /**
   * Provider definitions beside the registry's (a test's fake vendor); the configuration must have
   * been loaded with them too (`loadConfig(env, { providers })`) to select one.
   */
  providerDefinitions?: readonly AnyProviderDefinition[];
  /** Subscriptions beside the manifests' (tests). */
  subscriptions?: readonly AppSubscription[];
}

export function assembleDeps(parts: DepsParts): Deps {
  const { config, database, secrets, mailer, log } = parts;
  const metrics = new Registry();
  const deps: Deps = {
    config,
    database,
    db: database.db,
    clock: parts.clock ?? systemClock,
    secrets,
    mailer,
    providers: {
      ...createProviders(config, secrets, { metrics, log }, parts.providerDefinitions),
      ...parts.providers,
    } as Providers,
    log,
    metrics,
    events: createAppEvents(() => deps, parts.subscriptions),
  };
  return deps;
}
