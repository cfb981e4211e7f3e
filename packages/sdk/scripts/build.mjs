#!/usr/bin/env node
/**
 * Builds the publishable package into dist/: ESM (dist/esm, `tsc -p tsconfig.json`, Node's NodeNext
 * rules) and CommonJS (dist/cjs, `tsc -p tsconfig.cjs.json`, marked by its own package.json), each
 * with declarations. The generated `schema.d.ts` is a declaration file, which tsc does not copy: it
 * is copied beside both outputs. `npm pack` runs this first (the `prepack` script).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(pkg, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

fs.rmSync(dist, { recursive: true, force: true });
for (const [config, out] of [
  ['tsconfig.json', 'esm'],
  ['tsconfig.cjs.json', 'cjs'],
]) {
  execFileSync(process.execPath, [tsc, '-p', path.join(pkg, config)], { stdio: ['ignore', 2, 2] });
  fs.copyFileSync(path.join(pkg, 'src/generated/schema.d.ts'), path.join(dist, out, 'generated/schema.d.ts'));
}
fs.writeFileSync(path.join(dist, 'cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
// stderr: `npm pack --json` prints its result on stdout.
process.stderr.write(`built ${path.relative(process.cwd(), dist) || 'dist'} (esm, cjs)\n`);
