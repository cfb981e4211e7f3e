/**
 * The real app over a throwaway in-memory database, never listening: for commands that read what
 * the app declares (the permission table, the OpenAPI document for the SDK).
 */

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Registry } from 'prom-client';
import { type BuildOptions, buildApp } from '../app';
import { loadConfig } from '../config';
import { openPglite } from '../db/client';
import type { Deps } from '../deps';
import { createAppEvents } from '../modules/index';
import { createProviders } from '../providers/index';
import { systemClock } from '../shared/clock';
import { deriveSecrets } from '../shared/crypto';

/** Builds the app from `env` only (not the caller's environment), runs `use`, then closes it. */
export async function withOfflineApp<T>(
  env: Record<string, string>,
  build: BuildOptions,
  use: (app: FastifyInstance) => Promise<T>,
): Promise<T> {
  const config = loadConfig({ LOG_LEVEL: 'silent', SVC_WORKERS_ENABLED: 'false', ...env });
  const database = await openPglite({ dataDir: null });
  const secrets = deriveSecrets(randomBytes(32).toString('hex'), randomBytes(32).toString('base64'));
  const metrics = new Registry();
  const log = pino({ level: 'silent' });
  const deps: Deps = {
    config,
    database,
    db: database.db,
    clock: systemClock,
    secrets,
    mailer: { send: async () => {} },
    providers: createProviders(config, secrets, { metrics, log }),
    log,
    metrics,
    events: createAppEvents(() => deps),
  };
  const app = await buildApp(deps, build);
  try {
    await app.ready();
    return await use(app);
  } finally {
    await app.close();
    await database.close();
  }
}
