/**
 * File roles (docs/architecture.md, "File roles"): every file under src/modules/ ends in
 * `.<role>.ts` with a role from one closed list, or is a feature's manifest (`<feature>/index.ts`,
 * and src/modules/index.ts, the list of manifests). Machine files hold the status table only: no
 * writes (insert, update, delete, a transaction or raw SQL); the writes are in the transitions,
 * service or repo files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const FILE_ROLES = [
  'routes',
  'schemas',
  'service',
  'repo',
  'machine',
  'transitions',
  'actions',
  'view',
  'jobs',
  'listeners',
  'messages',
  'page',
  'worker',
  'policy',
  'statements',
  'inbound',
] as const;

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODULES = path.join(ROOT, 'src/modules');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full);
    return e.name.endsWith('.ts') ? [path.relative(MODULES, full).split(path.sep).join('/')] : [];
  });
}

const ROLE = new RegExp(`\\.(${FILE_ROLES.join('|')})\\.ts$`);
const isManifest = (f: string) => f === 'index.ts' || /^[^/]+\/index\.ts$/.test(f);

it('every file under src/modules has a role from the closed list, or is a manifest', () => {
  const files = filesUnder(MODULES);
  const without = files.filter((f) => !ROLE.test(f) && !isManifest(f));
  expect(without).toEqual([]);
  expect(FILE_ROLES.length).toBeLessThanOrEqual(16);
});

it('machine files hold the table only: no inserts, updates, deletes, transactions or SQL', () => {
  const machines = filesUnder(MODULES).filter((f) => f.endsWith('.machine.ts'));
  expect(machines.length).toBeGreaterThan(10);
  const writes = machines.flatMap((f) => {
    const code = fs
      .readFileSync(path.join(MODULES, f), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    const found = code.match(/\.(insert|update|delete|transaction|execute|query)\s*\(|\bsql\s*`/g) ?? [];
    return found.map((w) => `${f}: ${w}`);
  });
  expect(writes).toEqual([]);
});
