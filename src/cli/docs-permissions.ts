/**
 * Writes the permission matrix (roles per permission and the routes using it) into
 * docs/guides/roles-permissions.md and each area guide's endpoint table (`npm run docs:permissions`),
 * collected from the real app over a throwaway in-memory database. test/auth/route-access.test.ts
 * fails while either is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RouteOptions } from 'fastify';
import { permissionsMarkdown, routeAccessOf } from '../modules/auth/team/permissions-doc.service';
import { endpointBlocks, writeBlock } from './docs-blocks';
import { withOfflineApp } from './offline-app';

const guides = path.resolve(import.meta.dirname, '../../docs/guides');

function update(guide: string, name: string, content: string) {
  const file = path.join(guides, `${guide}.md`);
  fs.writeFileSync(file, writeBlock(fs.readFileSync(file, 'utf8'), name, content));
  process.stdout.write(`docs/guides/${guide}.md: ${name}\n`);
}

async function main() {
  const seen: RouteOptions[] = [];
  await withOfflineApp({}, { onRoute: (r) => seen.push(r) }, async () => {
    const routes = routeAccessOf(seen);
    update('roles-permissions', 'permissions', permissionsMarkdown(routes));
    for (const [guide, table] of endpointBlocks(routes)) update(guide, `endpoints:${guide}`, table);
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
