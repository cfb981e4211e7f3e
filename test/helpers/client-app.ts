/**
 * The most common preamble of an API test file: a test app (the worker's shared app when `app` has
 * no settings, docs/testing.md "One app per worker") and one client with its owner (createTestClient).
 * Registers the file's (or the describe's) beforeAll/afterAll and returns the suite; its fields are
 * set once beforeAll has run, so read them inside hooks and tests (`s.ctx`, `s.owner`).
 */
import { afterAll, beforeAll } from 'vitest';
import { createTestApp, type TestAppOptions, type TestContext } from './app';
import { createTestClient, type TestCaller, type TestClientOptions } from './clients';

export interface ClientApp {
  ctx: TestContext;
  /** The client's caller (an owner unless `client.role` says otherwise). */
  owner: TestCaller;
}

export function clientApp(opts: { app?: TestAppOptions; client?: TestClientOptions } = {}): ClientApp {
  const s = {} as ClientApp;
  beforeAll(async () => {
    s.ctx = await createTestApp(opts.app);
    s.owner = await createTestClient(s.ctx, opts.client);
  });
  afterAll(() => s.ctx?.close());
  return s;
}
