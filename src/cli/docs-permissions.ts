/**
 * Prints the permission matrix as Markdown (`npm run docs:permissions`): roles per permission and
 * the routes using it, collected from the real app over a throwaway in-memory database.
 */
import { randomBytes } from 'node:crypto';
import type { RouteOptions } from 'fastify';
import pino from 'pino';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { openPglite } from '../db/client';
import type { Deps } from '../deps';
import { permissionsMarkdown, routeAccessOf } from '../modules/auth/permissions-doc';
import { createProviders } from '../providers/index';
import { systemClock } from '../shared/clock';
import { deriveSecrets } from '../shared/crypto';

async function main() {
  const config = loadConfig({ LOG_LEVEL: 'silent', SVC_WORKERS_ENABLED: 'false' });
  const database = await openPglite({ dataDir: null });
  const secrets = deriveSecrets(randomBytes(32).toString('hex'), randomBytes(32).toString('base64'));
  const deps: Deps = {
    config,
    database,
    db: database.db,
    clock: systemClock,
    secrets,
    mailer: { send: async () => {} },
    providers: createProviders(config, secrets),
    log: pino({ level: 'silent' }),
  };
  const seen: RouteOptions[] = [];
  const app = await buildApp(deps, { onRoute: (r) => seen.push(r) });
  await app.ready();
  process.stdout.write(`${permissionsMarkdown(routeAccessOf(seen))}\n`);
  await app.close();
  await database.close();
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
