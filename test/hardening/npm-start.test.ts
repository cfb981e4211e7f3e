/**
 * `npm start` runs the compiled server (building dist/ first when src/ changed), so a SIGTERM sent
 * to npm reaches the server: it shuts down within the shutdown timeout, releasing the port and the
 * embedded database's lock, and leaves no orphan behind.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testEngine } from '../helpers/db';
import { freePort, isolatedServiceEnv, type ServiceProcess, startService } from '../helpers/process';

const root = path.resolve(import.meta.dirname, '../..');
const SHUTDOWN_TIMEOUT_SECONDS = 5;

let svc: ServiceProcess | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterAll(async () => {
  if (svc && svc.child.exitCode === null) svc.child.kill('SIGKILL');
  await cleanup?.();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

describe('npm start', () => {
  it('serves the built server, and SIGTERM to npm stops it in time, freeing the port and the lock', async () => {
    const iso = await isolatedServiceEnv();
    cleanup = iso.cleanup;
    const port = await freePort();
    svc = await startService(
      { ...iso.env, SVC_SHUTDOWN_TIMEOUT_SECONDS: String(SHUTDOWN_TIMEOUT_SECONDS) },
      port,
      {
        command: ['npm', 'start', '--silent'],
        readyTimeoutMs: 300_000,
      },
    );
    expect(fs.existsSync(path.join(root, 'dist/server.js'))).toBe(true);

    // The server is npm's child: its pid is in its log lines (and in the PGlite lock file).
    const started = svc
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; pid?: number })
      .find((l) => l.msg === 'service started');
    const serverPid = started?.pid ?? 0;
    expect(serverPid).toBeGreaterThan(0);
    expect(serverPid).not.toBe(svc.child.pid);
    const lockFile = path.join(iso.env.SVC_DATA_DIR!, 'pgdata', '.svc.lock');
    if (testEngine() === 'pglite') expect(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid).toBe(serverPid);

    const t0 = Date.now();
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(SHUTDOWN_TIMEOUT_SECONDS * 1000 + 2000);
    expect(svc.output()).toContain('shutdown complete');
    for (let i = 0; i < 50 && alive(serverPid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(serverPid)).toBe(false);
    expect(await portIsFree(port)).toBe(true);
    if (testEngine() === 'pglite') expect(fs.existsSync(lockFile)).toBe(false);
  }, 360_000);

  it('does not rebuild an up-to-date dist/', () => {
    const t0 = Date.now();
    const out = execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toBe('');
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 30_000);
});
