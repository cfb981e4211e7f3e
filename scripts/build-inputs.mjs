/**
 * What the server build (scripts/build.mjs) is made from, and whether dist/ was built from the
 * current sources: the build writes the hash of its inputs to dist/.build-hash, and the `svc`
 * command (bin/svc.mjs) runs the compiled CLI only while that hash matches.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
export const stampFile = path.join(dist, '.build-hash');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

export function filesUnder(p) {
  const stat = fs.statSync(p, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isDirectory()) return [p];
  return fs
    .readdirSync(p)
    .sort()
    .flatMap((name) => filesUnder(path.join(p, name)));
}

/** Hash of every build input's path and content. */
export function inputHash() {
  const h = createHash('sha256');
  for (const input of INPUTS)
    for (const file of filesUnder(path.join(root, input))) {
      h.update(path.relative(root, file));
      h.update('\0');
      h.update(fs.readFileSync(file));
      h.update('\0');
    }
  return h.digest('hex');
}

export function readOr(file, fallback) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

export const isFresh = (hash) => fs.existsSync(path.join(dist, 'server.js')) && readOr(stampFile, '') === hash;

/** True when dist/ holds a build of the current sources. */
export const distIsFresh = () => fs.existsSync(stampFile) && isFresh(inputHash());
