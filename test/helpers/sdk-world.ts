/**
 * What the SDK tests call over real HTTP: an app listening on a free port, a payment world with an
 * owner, an operations API credential, and the client's webhook subscription pointed at a local
 * receiver.
 */
import { expect } from 'vitest';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { createTestApp, type TestAppOptions, type TestContext } from './app';
import { freePort } from './process';
import { type Receiver, startReceiver } from './receiver';

export interface SdkWorld {
  ctx: TestContext;
  baseUrl: string;
  world: PaymentWorld;
  credential: { api_key: string; api_secret: string };
  receiver: Receiver;
  webhookSecret: string;
}

export async function startSdkWorld(label: string, appOptions: TestAppOptions = {}): Promise<SdkWorld> {
  const ctx = await createTestApp(appOptions);
  const port = await freePort();
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const world = await createPaymentWorld(ctx, { role: 'owner' });
  const cred = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/auth/api-credentials',
    headers: world.caller.headers,
    payload: { label, role: 'operations' },
  });
  expect(cred.statusCode, cred.body).toBe(201);
  const receiver = await startReceiver();
  const sub = await ctx.app.inject({
    method: 'PUT',
    url: '/api/v1/webhooks/subscription',
    headers: world.caller.headers,
    payload: { webhook_url: `${receiver.url}/hook`, webhook_enabled: true },
  });
  expect(sub.statusCode, sub.body).toBe(200);
  return {
    ctx,
    baseUrl: `http://127.0.0.1:${port}`,
    world,
    credential: cred.json(),
    receiver,
    webhookSecret: sub.json().webhook_secret,
  };
}
