/**
 * Runs the real service as a child process: one node process running the compiled server
 * (`node dist/server.js`, built once per run when src/ changed: the build script checks its input
 * hash and serializes concurrent builds), so a signal hits the server itself and not a wrapper, and
 * no process pays for compiling TypeScript at start. `isolatedServiceEnv` gives it its own
 * temp PGlite directory, or a fresh PostgreSQL database on the postgres engine.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../bench/service-process';
import { createScratchPostgresDatabase, provided, testEngine } from './db';
import { addExternalLog } from './log-capture';

export { freePort };

/** Environment for a child service with its own database: temp data dir, and a fresh PG database when testing PostgreSQL. */
export async function isolatedServiceEnv(): Promise<{
  env: Record<string, string>;
  cleanup: () => Promise<void>;
}> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-proc-'));
  const env: Record<string, string> = {
    SVC_DATA_DIR: dataDir,
    SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    SVC_DATA_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'info',
  };
  const scratch = testEngine() === 'postgres' ? await createScratchPostgresDatabase('svc_proc') : null;
  if (scratch) env.DATABASE_URL = scratch.url;
  // The suite's migrated template, so the process skips initdb and the migrations (test/helpers/global-setup.ts).
  const template = scratch ? undefined : provided('pgliteTemplateDir');
  if (template) fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
  return {
    env,
    cleanup: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
  };
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');
let built: Promise<void> | undefined;

/** Compiles src/ to dist/ when it changed since the last build (once per test worker). */
export function ensureBuilt(): Promise<void> {
  built ??= new Promise<void>((resolve, reject) =>
    execFile(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT }, (err, _out, stderr) =>
      err ? reject(new Error(`build failed: ${stderr}`)) : resolve(),
    ),
  );
  return built;
}

export interface StartOptions {
  /** The command line (default: one node process running the compiled dist/server.js). */
  command?: [string, ...string[]];
  /** How long to wait for /readyz (default 60 s; `npm start` may build first). */
  readyTimeoutMs?: number;
}

/**
 * Starts the service with only the given environment (plus PATH and HOME: nothing of the test
 * runner's own environment leaks in) and resolves once /readyz answers 200.
 */
export async function startService(
  env: Record<string, string>,
  port?: number,
  opts: StartOptions = {},
): Promise<ServiceProcess> {
  const p = port ?? (await freePort());
  if (!opts.command) await ensureBuilt();
  const [cmd, ...args] = opts.command ?? [process.execPath, '--enable-source-maps', 'dist/server.js'];
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(p),
      HOST: '127.0.0.1',
      SVC_PUBLIC_URL: `http://127.0.0.1:${p}`,
      // No load balancer in front: SIGTERM closes at once (the cluster tests set a drain).
      SVC_SHUTDOWN_DRAIN_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  addExternalLog(() => out);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${p}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not become ready:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, baseUrl, output: () => out, exited };
}

export interface CapturedProcess {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs a command from the repository root with only the given environment (plus PATH and HOME),
 * capturing its output (also scanned for secrets by the setup file).
 */
export function spawnCaptured(cmd: string, args: string[], env: Record<string, string>): CapturedProcess {
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  addExternalLog(() => out);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}
