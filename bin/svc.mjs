#!/usr/bin/env node
// The `svc` command: the compiled CLI when dist/ was built from the current sources (`npm run build`,
// or `npm start`'s prestart), which starts in about half the time; otherwise the TypeScript sources
// through tsx's loader.
import { distIsFresh } from '../scripts/build-inputs.mjs';

if (distIsFresh()) {
  await import('../dist/cli/index.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/index.ts');
}
