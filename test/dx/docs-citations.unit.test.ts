/**
 * Code comments cite the repository's own docs (docs/guides/*.md, docs/*.md), never the product
 * specification files, which are not part of the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const DIRS = ['src', 'test', 'packages/sdk/src', 'packages/dashboard/src', 'bench', 'scripts', 'drizzle'];
const SPEC = /api-spec|named-areas(\.md| §)|\bcontract\.md/;
/** This file and the link checker name the files they refuse. */
const SELF = new Set(['test/dx/docs-citations.unit.test.ts', 'test/dx/docs-links.unit.test.ts']);

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : files(full);
    return /\.(ts|tsx|mjs|cjs|js|sql)$/.test(e.name) ? [full] : [];
  });
}

describe('citations in code', () => {
  it('no comment cites a specification file outside the repository', () => {
    const found: string[] = [];
    for (const dir of DIRS)
      for (const file of files(path.join(root, dir))) {
        const rel = path.relative(root, file);
        if (SELF.has(rel)) continue;
        fs.readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (SPEC.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
          });
      }
    expect(found).toEqual([]);
  });
});
