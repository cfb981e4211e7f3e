/**
 * The real app over a throwaway in-memory database, never listening: for commands that read what
 * the app declares (the permission table, the OpenAPI document for the SDK).
 */

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { type BuildOptions, buildApp } from '../app';
import { assembleDeps } from '../compose';
import { loadConfig } from '../config';
import { openPglite } from '../db/client';
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
  const mailer = { send: async () => {} };
  const deps = assembleDeps({ config, database, secrets, mailer, log: pino({ level: 'silent' }) });
  const app = await buildApp(deps, build);
  try {
    await app.ready();
    return await use(app);
  } finally {
    await app.close();
    await database.close();
  }
}
