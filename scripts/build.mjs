#!/usr/bin/env node
/**
 * Compiles src/ to JavaScript in dist/ (esbuild, file by file, then tsc-alias adds the `.js`
 * extensions Node's ESM loader needs; JSON modules are copied beside their importers). dist/ mirrors src/, so paths
 * resolved from a module (the migrations folder, `../../drizzle`) are the same from both.
 *
 *   node scripts/build.mjs             build now
 *   node scripts/build.mjs --if-stale  build only when src/ or the build config changed since the
 *                                      last build (npm's prestart hook runs this)
 *   node scripts/build.mjs --dashboard-only [--if-stale]
 *                                      only the merchant dashboard (the browser tests run this)
 *
 * The dashboard (packages/dashboard, Vite) builds into packages/dashboard/dist, which the service
 * serves at /dashboard; it has its own input hash so a server-only change does not rebuild it.
 *
 * Concurrent builds (two `npm start`s, two test workers) serialize on a lock directory; the new
 * output is compiled beside dist/ and swapped in, so dist/ is never half written.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { filesUnder, inputHash, isFresh, readOr, stampFile } from './build-inputs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const lockDir = path.join(root, '.dist.lock');

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function withLock(fn) {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const owner = Number(readOr(path.join(lockDir, 'pid'), '0'));
      if (owner > 0 && !alive(owner)) fs.rmSync(lockDir, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`build lock ${lockDir} held by process ${owner}`);
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

function bin(name) {
  return path.join(root, 'node_modules', '.bin', name);
}

/** Every file under src/ with one of the extensions, relative to src/. */
function sourceFiles(ext) {
  return filesUnder(path.join(root, 'src')).filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts'));
}

/**
 * Transpiles src/ file by file with esbuild (no bundling, so dist/ mirrors src/), copies the JSON
 * modules beside their importers, then tsc-alias adds the `.js` extensions. Type checking is
 * `npm run typecheck`'s job: tsc's emit took a minute of every fresh start and of every CI run.
 */
async function compile(hash) {
  const tmp = path.join(root, `.dist.tmp-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  try {
    const { build } = await import('esbuild');
    await build({
      entryPoints: sourceFiles('.ts'),
      outdir: tmp,
      outbase: path.join(root, 'src'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // Node 20.10+ takes `with { type: 'json' }`; esbuild's table would otherwise drop the attribute.
      supported: { 'import-attributes': true },
      sourcemap: true,
      logLevel: 'warning',
    });
    for (const file of sourceFiles('.json')) {
      const to = path.join(tmp, path.relative(path.join(root, 'src'), file));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(file, to);
    }
    execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', tmp], { cwd: root, stdio: 'inherit' });
    fs.writeFileSync(path.join(tmp, '.build-hash'), hash);
    const old = path.join(root, `.dist.old-${process.pid}`);
    if (fs.existsSync(dist)) fs.renameSync(dist, old);
    fs.renameSync(tmp, dist);
    fs.rmSync(old, { recursive: true, force: true });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const DASHBOARD = path.join(root, 'packages', 'dashboard');
const DASHBOARD_DIST = path.join(DASHBOARD, 'dist');
const DASHBOARD_INPUTS = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json', 'package.json'];

function dashboardHash() {
  const h = createHash('sha256');
  const files = [
    ...DASHBOARD_INPUTS.flatMap((i) => filesUnder(path.join(DASHBOARD, i))),
    // The dashboard bundles the SDK from its sources (the alias in vite.config.ts).
    ...filesUnder(path.join(root, 'packages', 'sdk', 'src')),
    path.join(root, 'package-lock.json'),
  ];
  for (const file of files) {
    h.update(path.relative(root, file));
    h.update('\0');
    h.update(fs.readFileSync(file));
    h.update('\0');
  }
  return h.digest('hex');
}

/** Gzip size of the JavaScript the sign-in page loads before anything else (entry + modulepreloads). */
function dashboardInitialJsGzip(distDir = DASHBOARD_DIST) {
  const html = fs.readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const srcs = [...html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  return srcs.reduce((sum, rel) => sum + gzipSync(fs.readFileSync(path.join(distDir, rel))).length, 0);
}

function buildDashboard(ifStale) {
  if (!fs.existsSync(path.join(DASHBOARD, 'package.json'))) return;
  const hash = dashboardHash();
  const stamp = path.join(DASHBOARD_DIST, '.build-hash');
  if (ifStale && fs.existsSync(path.join(DASHBOARD_DIST, 'index.html')) && readOr(stamp, '') === hash) return;
  if (!fs.existsSync(bin('vite'))) {
    if (fs.existsSync(path.join(DASHBOARD_DIST, 'index.html'))) {
      process.stderr.write('build: Vite is not installed (production install); using the existing dashboard build\n');
      return;
    }
    throw new Error('build: Vite is not installed and the dashboard is not built; run `npm install` first');
  }
  // Vite does not type check; `npm run typecheck` does (tsc -p packages/dashboard).
  process.stderr.write('build: building the dashboard (Vite) ...\n');
  const tmp = path.join(DASHBOARD, `.dist.tmp-${process.pid}`);
  try {
    // NODE_ENV=test (vitest) would otherwise give React's development build.
    execFileSync(bin('vite'), ['build', '--logLevel', 'warn', '--outDir', tmp, '--emptyOutDir'], {
      cwd: DASHBOARD,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    fs.writeFileSync(path.join(tmp, '.build-hash'), hash);
    const old = path.join(DASHBOARD, `.dist.old-${process.pid}`);
    if (fs.existsSync(DASHBOARD_DIST)) fs.renameSync(DASHBOARD_DIST, old);
    fs.renameSync(tmp, DASHBOARD_DIST);
    fs.rmSync(old, { recursive: true, force: true });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const kb = (dashboardInitialJsGzip() / 1024).toFixed(1);
  process.stderr.write(`build: dashboard sign-in page initial JS ${kb} KB gzip (budget 200 KB)\n`);
}

const ifStale = process.argv.includes('--if-stale');
const dashboardOnly = process.argv.includes('--dashboard-only');
const started = Date.now();
await withLock(async () => {
  buildDashboard(ifStale);
  if (dashboardOnly) return;
  const hash = inputHash();
  if (ifStale && isFresh(hash)) return;
  if (!fs.existsSync(bin('esbuild'))) {
    if (fs.existsSync(path.join(dist, 'server.js'))) {
      process.stderr.write('build: esbuild is not installed (production install); using the existing dist/\n');
      return;
    }
    throw new Error('build: esbuild is not installed and there is no dist/; run `npm install` first');
  }
  process.stderr.write(`build: compiling src/ to dist/ ...\n`);
  await compile(hash);
  process.stderr.write(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
});
