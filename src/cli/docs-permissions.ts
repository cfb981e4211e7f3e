/**
 * Prints the permission matrix as Markdown (`npm run docs:permissions`): roles per permission and
 * the routes using it, collected from the real app over a throwaway in-memory database.
 */
import type { RouteOptions } from 'fastify';
import { permissionsMarkdown, routeAccessOf } from '../modules/auth/permissions-doc';
import { withOfflineApp } from './offline-app';

async function main() {
  const seen: RouteOptions[] = [];
  await withOfflineApp({}, { onRoute: (r) => seen.push(r) }, async () => {
    process.stdout.write(`${permissionsMarkdown(routeAccessOf(seen))}\n`);
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
