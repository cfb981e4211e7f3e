/**
 * Small pieces every bench, the cluster harness and the process tests use to run the service as a
 * child process: the Node.js options production starts it with, a free loopback port, and waiting
 * until `/readyz` answers 200.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * The Node.js options of package.json's `start` script (`exec node <options> dist/server.js`), e.g.
 * the heap limits: every bench, the soak and the cluster harness start the service with them, so it
 * runs as `npm start` runs it in production; the script is their one source.
 */
export function startScriptFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  return pkg.scripts.start.split(/\s+/).filter((arg) => arg.startsWith('--'));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once `${base}/readyz` answers 200; throws when the child exits or the deadline passes. */
export async function waitReady(
  base: string,
  child: ChildProcess,
  opts: { timeoutMs?: number; pollMs?: number; describe?: () => string } = {},
): Promise<void> {
  const { timeoutMs = 60_000, pollMs = 250, describe = () => '' } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}${describe()}`);
    try {
      const r = await fetch(`${base}/readyz`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`service did not become ready${describe()}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
