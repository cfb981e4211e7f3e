/**
 * examples/quickstart.sh (docs/guides/quickstart.md) runs end to end against a started service:
 * sandbox bootstrap (waiting for the opco activation), token exchange, a payment link, the
 * sandbox outcome and a signature-verified payment.status_changed webhook, in under 60 seconds.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isolatedServiceEnv, type ServiceProcess, spawnCaptured, startService } from '../helpers/process';

let service: ServiceProcess;
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedServiceEnv());
  service = await startService(env, undefined, { readyTimeoutMs: 150_000 });
}, 180_000);
afterAll(async () => {
  service?.child.kill('SIGTERM');
  await service?.exited;
  await cleanup?.();
});

async function runScript(file: string, extraEnv: Record<string, string>) {
  const p = spawnCaptured('bash', [file], extraEnv);
  return { code: await p.exited, out: p.output() };
}

it('goes from a started service to a verified payment webhook in under 60 seconds', async () => {
  const started = Date.now();
  const { code, out } = await runScript('examples/quickstart.sh', { ...env, SVC_URL: service.baseUrl });
  const seconds = (Date.now() - started) / 1000;
  expect(code, out).toBe(0);
  expect(out).toMatch(/verified payment\.status_changed success [0-9a-f-]{36}/);
  expect(out).toContain('done: verified payment webhook');
  expect(seconds).toBeLessThan(60);

  // Run again: the bootstrap reuses the saved sandbox client instead of registering another.
  const again = await runScript('examples/quickstart.sh', { ...env, SVC_URL: service.baseUrl });
  expect(again.code, again.out).toBe(0);
  expect(again.out).toContain('# reusing sandbox-');
}, 240_000);
