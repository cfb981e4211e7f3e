/**
 * The real app over a database that is never connected, never listening: for commands that read
 * what the app declares (the permission table, the OpenAPI document for the SDK). Building the app
 * runs no statement; an embedded in-memory database cost its initdb (about 5 to 10 s) for nothing.
 */

import { randomBytes } from 'node:crypto';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { type BuildOptions, buildApp } from '../app';
import { assembleDeps } from '../compose';
import { loadConfig } from '../config';
import type { Database, Db } from '../db/client';
import * as schema from '../db/schema/index';
import { deriveSecrets } from '../shared/crypto';

/** Builds the app from `env` only (not the caller's environment), runs `use`, then closes it. */
export async function withOfflineApp<T>(
  env: Record<string, string>,
  build: BuildOptions,
  use: (app: FastifyInstance) => Promise<T>,
): Promise<T> {
  const config = loadConfig({ LOG_LEVEL: 'silent', SVC_WORKERS_ENABLED: 'false', ...env });
  const database = unconnectedDatabase();
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

/** A Database whose every use fails: what the app declares must not depend on stored data. */
function unconnectedDatabase(): Database {
  const refuse = async (): Promise<never> => {
    throw new Error('the offline app has no database');
  };
  return {
    db: drizzle.mock({ schema }) as unknown as Db,
    engine: 'postgres',
    migrate: refuse,
    ready: refuse,
    query: refuse,
    close: async () => {},
  };
}
