/**
 * A first start on an empty embedded-database directory: PGlite's initdb runs in WebAssembly
 * instances of its own (about 250 MB) that the service process must never hold; the cluster is
 * created by a short-lived child (src/db/pglite-init.ts). The service's own peak resident memory
 * (VmHWM, which only grows) stays near a later start's instead of nearly doubling. PGlite only.
 */

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterExists } from '../../src/db/pglite-init';
import { testEngine } from '../helpers/db';
import { type ServiceProcess, startService } from '../helpers/process';

const peakMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

describe.skipIf(testEngine() !== 'pglite' || !fs.existsSync('/proc/self/status'))(
  'first start on an empty data directory',
  () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-fresh-'));
    const services: ServiceProcess[] = [];
    afterAll(async () => {
      for (const s of services) if (s.child.exitCode === null) s.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const env = {
      SVC_DATA_DIR: dataDir,
      SVC_JWT_SECRET: randomBytes(32).toString('hex'),
      SVC_DATA_KEY: randomBytes(32).toString('base64'),
      SVC_WORKERS_ENABLED: 'false',
      LOG_LEVEL: 'info',
    };

    it('creates the cluster out of process and keeps the service at a later start’s size', async () => {
      const first = await startService(env, undefined, { readyTimeoutMs: 120_000 });
      services.push(first);
      expect(clusterExists(path.join(dataDir, 'pgdata'))).toBe(true);
      expect(first.output()).toContain('embedded database created');
      const firstPeak = peakMb(first.child.pid!);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      const again = await startService(env, undefined, { readyTimeoutMs: 120_000 });
      services.push(again);
      expect(again.output()).not.toContain('embedded database created');
      const laterPeak = peakMb(again.child.pid!);
      again.child.kill('SIGTERM');
      await again.exited;
      // initdb in process added 400-500 MB to the first start's peak; now the two are alike.
      console.log(
        `peak resident memory: first start ${firstPeak.toFixed(0)} MB, later start ${laterPeak.toFixed(0)} MB`,
      );
      expect(firstPeak).toBeLessThan(laterPeak + 150);
    }, 300_000);
  },
);
