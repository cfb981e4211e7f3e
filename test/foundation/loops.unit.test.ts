/**
 * The background loops (docs/architecture.md, "Loops and jobs"): every call of a loop constructor of
 * src/workers/loop.ts in src/ names its loop, and the list of names is the one the architecture
 * notes count and table, so a loop added or turned into timers updates the notes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONSTRUCTOR = /\b(?:loopWorker|sweepWorker|periodicWorker)\(\s*(?:deps,\s*)?'([^']+)'/g;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

it('the loops defined in src/ are the ones docs/architecture.md lists and counts', () => {
  const loopFile = path.join(ROOT, 'src/workers/loop.ts');
  const names = sources(path.join(ROOT, 'src'))
    .filter((f) => f !== loopFile)
    .flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(CONSTRUCTOR)].map((m) => m[1]!))
    .sort();
  expect(new Set(names).size).toBe(names.length);
  const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('**Loops** remain'), doc.indexOf('## Adding a provider'));
  const table = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| |'));
  const documented = table.flatMap((row) => [...row.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!)).sort();
  expect(documented).toEqual(names);
  expect(section).toContain(`${names.length} are defined`);
  const perRow = table.map((row) => Number(/\((\d+)\)/.exec(row)?.[1]));
  expect(perRow.reduce((a, b) => a + b, 0)).toBe(names.length);
});
