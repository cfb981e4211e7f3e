/**
 * Runs the real service (`tsx src/server.ts`) as a child process, on a temp PGlite directory or a
 * fresh PostgreSQL database depending on the engine under test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { testEngine } from './db';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

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
  let dbName: string | null = null;
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (testEngine() === 'postgres' && adminUrl) {
    dbName = `svc_proc_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    env.DATABASE_URL = u.toString();
  }
  return {
    env,
    cleanup: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (dbName && adminUrl) {
        const admin = new pg.Client({ connectionString: adminUrl });
        await admin.connect();
        await admin.query(`drop database if exists ${dbName} with (force)`);
        await admin.end();
      }
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

export async function startService(env: Record<string, string>, port?: number): Promise<ServiceProcess> {
  const p = port ?? (await freePort());
  const root = path.resolve(import.meta.dirname, '../..');
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(p),
      HOST: '127.0.0.1',
      SVC_PUBLIC_URL: `http://127.0.0.1:${p}`,
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
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${p}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early:\n${out}`);
    try {
      const r = await fetch(`${baseUrl}/healthz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, baseUrl, output: () => out, exited };
}
