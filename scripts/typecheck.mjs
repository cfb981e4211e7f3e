/**
 * `npm run typecheck`: the server (with the tests, bench and scripts), the dashboard and the SDK,
 * checked by TypeScript 7, the native compiler (the `typescript-native` alias of `typescript@7`),
 * about four times less CPU than TypeScript 5.9's `tsc` on this codebase. TypeScript 5.9 stays
 * the `typescript` package: openapi-typescript (the SDK's generator), dependency-cruiser and the
 * SDK's own build use its JavaScript API, which 7.0 does not ship. Both accept the code; see
 * docs/testing.md ("Type check").
 *
 * The compiler is called by path: both packages declare a `tsc` bin, and which one npm links
 * into node_modules/.bin is not something to rely on.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';

// bin/ is not among the package's exports: found beside its package.json.
const pkg = createRequire(import.meta.url).resolve('typescript-native/package.json');
const tsc = path.join(path.dirname(pkg), 'bin/tsc');
const projects = [['--noEmit'], ['-p', 'packages/dashboard', '--noEmit'], ['-p', 'packages/sdk', '--noEmit']];
for (const args of projects) {
  const { status } = spawnSync(process.execPath, [tsc, ...args], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
