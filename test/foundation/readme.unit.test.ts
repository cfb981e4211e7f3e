/**
 * The configuration table (docs/guides/operations.md) names every environment variable the service
 * reads, and the README starts with the two commands and leads into the guides.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

describe('README and the operations guide', () => {
  it('the configuration table documents every environment variable of src/config.ts', () => {
    const config = read('src/config.ts');
    const table = read('docs/guides/operations.md');
    const vars = [...config.matchAll(/r\.\w+\(\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!);
    expect(vars.length).toBeGreaterThan(20);
    const missing = [...new Set(vars)].filter((v) => !table.includes(`\`${v}\``));
    expect(missing).toEqual([]);
  });

  it('starts with the two commands and links the guides, in at most about 250 lines', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
    expect(readme).toContain('(docs/guides/quickstart.md)');
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
  });
});
