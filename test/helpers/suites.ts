/**
 * The most common preambles of an API test file, as suites: each registers the file's (or the
 * describe's) beforeAll/afterAll and returns an object whose fields are set once beforeAll has run,
 * so read them inside hooks and tests (`s.ctx`, `s.owner`, `suite.smtp`).
 *
 * - `clientApp`: a test app (the worker's shared app when `app` has no settings, docs/testing.md
 *   "One app per worker") and one client with its owner (createTestClient).
 * - `smtpApp`: a real SMTP capture on loopback (helpers/smtp.ts) and a test app mailing through it
 *   (the shared app too: a `mailer` is the one setting it takes); with `client`, a client as well.
 * - `paymentApp`: a test app (`app`) and a payment world (createPaymentWorld with `world`): a client
 *   with a project and a user, ready to take payments.
 * - `webhookWorld`: a webhook receiver on loopback, a test app (`app`; with `smtp`, mailing through a
 *   capture), its delivery dispatcher, a payment world (createPaymentWorld) whose main webhook points
 *   at the receiver's `/hooks`.
 */
import { afterAll, beforeAll } from 'vitest';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { createTestApp, type TestAppOptions, type TestContext } from './app';
import { createTestClient, type TestCaller, type TestClientOptions } from './clients';
import { type Receiver, startReceiver } from './receiver';
import { type SmtpCapture, startSmtpCapture } from './smtp';
import { setMainWebhook } from './webhooks';

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

export interface PaymentApp {
  ctx: TestContext;
  w: PaymentWorld;
}

export function paymentApp(opts: { app?: TestAppOptions; world?: TestClientOptions } = {}): PaymentApp {
  const s = {} as PaymentApp;
  beforeAll(async () => {
    s.ctx = await createTestApp(opts.app);
    s.w = await createPaymentWorld(s.ctx, opts.world);
  });
  afterAll(() => s.ctx?.close());
  return s;
}

export interface WebhookWorld {
  ctx: TestContext;
  rx: Receiver;
  dispatcher: DeliveryDispatcher;
  w: PaymentWorld;
  /** Set only with `smtp: true`. */
  smtp: SmtpCapture;
}

export function webhookWorld(opts: { app?: TestAppOptions; smtp?: boolean } = {}): WebhookWorld {
  const s = {} as WebhookWorld;
  beforeAll(async () => {
    if (opts.smtp) s.smtp = await startSmtpCapture();
    s.rx = await startReceiver();
    s.ctx = await createTestApp({ ...opts.app, ...(opts.smtp ? { mailer: s.smtp.mailer } : {}) });
    s.dispatcher = createDeliveryDispatcher(s.ctx.deps);
    s.w = await createPaymentWorld(s.ctx);
    await setMainWebhook(s.ctx, s.w.caller.clientId, `${s.rx.url}/hooks`);
  });
  afterAll(async () => {
    await s.dispatcher?.close();
    await s.rx?.close();
    await s.ctx?.close();
    await s.smtp?.close();
  });
  return s;
}
