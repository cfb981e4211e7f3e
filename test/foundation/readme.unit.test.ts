/** The README's configuration table must name every environment variable the service reads. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('README', () => {
  it('documents every environment variable of src/config.ts', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const config = fs.readFileSync(path.join(root, 'src/config.ts'), 'utf8');
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const vars = [...config.matchAll(/r\.\w+\(\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!);
    expect(vars.length).toBeGreaterThan(20);
    const missing = [...new Set(vars)].filter((v) => !readme.includes(`\`${v}\``));
    expect(missing).toEqual([]);
  });

  it('starts with the two commands', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});
