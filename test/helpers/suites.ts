/**
 * The most common preambles of an API test file, as suites: each registers the file's (or the
 * describe's) beforeAll/afterAll and returns an object whose fields are set once beforeAll has run,
 * so read them inside hooks and tests (`s.ctx`, `s.owner`, `suite.smtp`).
 *
 * - `clientApp`: a test app (the worker's shared app when `app` has no settings, docs/testing.md
 *   "One app per worker") and one client with its owner (createTestClient).
 * - `smtpApp`: a real SMTP capture on loopback (helpers/smtp.ts) and a test app mailing through it
 *   (the shared app too: a `mailer` is the one setting it takes); with `client`, a client as well.
 */
import { afterAll, beforeAll } from 'vitest';
import { createTestApp, type TestAppOptions, type TestContext } from './app';
import { createTestClient, type TestCaller, type TestClientOptions } from './clients';
import { type SmtpCapture, startSmtpCapture } from './smtp';

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

export interface SmtpApp {
  ctx: TestContext;
  smtp: SmtpCapture;
  /** Set only when `client` was given. */
  owner: TestCaller;
}

export function smtpApp(opts: { client?: TestClientOptions } = {}): SmtpApp {
  const s = {} as SmtpApp;
  beforeAll(async () => {
    s.smtp = await startSmtpCapture();
    s.ctx = await createTestApp({ mailer: s.smtp.mailer });
    if (opts.client) s.owner = await createTestClient(s.ctx, opts.client);
  });
  afterAll(async () => {
    await s.ctx?.close();
    await s.smtp?.close();
  });
  return s;
}
