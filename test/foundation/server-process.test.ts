/** The real entry point: starts on the engine under test, serves the basics, shuts down gracefully. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngine } from '../helpers/db';
import { isolatedServiceEnv, type ServiceProcess, startService } from '../helpers/process';

let svc: ServiceProcess;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const iso = await isolatedServiceEnv();
  cleanup = iso.cleanup;
  svc = await startService(iso.env);
});
afterAll(async () => {
  if (svc.child.exitCode === null) svc.child.kill('SIGKILL');
  await cleanup();
});

describe('service process', () => {
  it('serves health, readiness, OpenAPI and docs', async () => {
    expect(await (await fetch(`${svc.baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${svc.baseUrl}/readyz`)).json()).toEqual({
      status: 'ready',
      database: testEngine(),
    });
    const doc = await fetch(`${svc.baseUrl}/api/v1/openapi.json`);
    expect(((await doc.json()) as { openapi: string }).openapi).toBe('3.1.0');
    expect((await fetch(`${svc.baseUrl}/docs/`)).status).toBe(200);
  });

  it('logs structured lines with the request id and without the authorization header', async () => {
    await fetch(`${svc.baseUrl}/api/v1/auth/me`, {
      headers: { 'x-request-id': 'trace-me-123', authorization: 'Bearer super-secret-token-value' },
    });
    const logged = () =>
      svc
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .some((l) => l.reqId === 'trace-me-123');
    // stdout of the child arrives asynchronously: wait for the line rather than a fixed time
    for (let i = 0; i < 100 && !logged(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(logged()).toBe(true);
    expect(svc.output()).not.toContain('super-secret-token-value');
  });

  it('shuts down gracefully on SIGTERM', async () => {
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
    expect(svc.output()).toContain('shutdown complete');
  });
});
