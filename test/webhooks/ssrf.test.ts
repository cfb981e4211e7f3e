/**
 * Outbound-call protection in a production deployment: only public http(s) targets are accepted,
 * and a target that is (or resolves to) a loopback/private/link-local address is refused without
 * a single byte being sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { assertPublicHost, isForbiddenAddress } from '../../src/outbox/ssrf';
import { M } from '../../src/shared/messages';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { deliveriesOfEvent, emitTestEvent, setMainWebhook } from '../helpers/webhooks';

let ctx: TestContext;
let rx: Receiver;
let dispatcher: DeliveryDispatcher;

beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      ...PRODUCTION_ENV,
    },
  });
  expect(ctx.config.environment).toBe('production');
  rx = await startReceiver();
  dispatcher = createDeliveryDispatcher(ctx.deps);
});
afterAll(async () => {
  await dispatcher.close();
  await rx.close();
  await ctx.close();
});

describe('address rules', () => {
  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '127.1.2.3',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '224.0.0.1',
      '255.255.255.255',
      'not-an-ip',
    ])
      expect(isForbiddenAddress(a), a).toBe(true);
    for (const a of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '2001:4860:4860::8888',
    ])
      expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('refuses a host when any resolved address is not public', async () => {
    await expect(
      assertPublicHost('ok.example', async () => [{ address: '93.184.216.34', family: 4 }]),
    ).resolves.toBeUndefined();
    await expect(
      assertPublicHost('mixed.example', async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ]),
    ).rejects.toThrow(/non-public/);
    await expect(
      assertPublicHost('gone.example', async () => {
        throw new Error('ENOTFOUND');
      }),
    ).rejects.toThrow(/does not resolve/);
    await expect(assertPublicHost('169.254.169.254')).rejects.toThrow(/not allowed/);
  });
});

describe('configuration endpoints in production', () => {
  it('reject loopback, private and link-local targets with 422', async () => {
    const c = await createTestClient(ctx, { productionAccess: true });
    for (const url of [
      `http://127.0.0.1:${rx.port}/x`,
      `http://localhost:${rx.port}/x`,
      'http://10.0.0.8/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://2130706433/x',
      'file:///etc/passwd',
    ]) {
      const put = await ctx.app.inject({
        method: 'PUT',
        url: '/api/v1/webhooks/subscription',
        headers: c.headers,
        payload: { webhook_url: url },
      });
      expect(put.statusCode, url).toBe(422);
      const dest = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/destinations',
        headers: c.headers,
        payload: { url },
      });
      expect(dest.statusCode, url).toBe(422);
      expect(dest.json().detail[0].loc).toEqual(['body', 'url']);
      // The client settings endpoint applies the same target rules to webhook_url.
      const settings = await ctx.app.inject({
        method: 'PUT',
        url: '/api/v1/auth/client/settings',
        headers: c.headers,
        payload: { webhook_url: url.replace(/^http:/, 'https:') },
      });
      expect(settings.statusCode, url).toBe(422);
      expect(settings.json().detail[0].loc).toEqual(['body', 'webhook_url']);
    }
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/api/v1/webhooks/subscription',
      headers: c.headers,
      payload: { webhook_url: 'http://127.0.0.1/' },
    });
    expect(res.json().detail[0].msg).toBe(M.webhookUrlNotPublic);
  });
});

describe('the sender in production', () => {
  it('never sends to a loopback target, whether literal, mapped or resolved by name', async () => {
    for (const [i, url] of [
      `http://127.0.0.1:${rx.port}/ssrf-literal`,
      `http://localhost:${rx.port}/ssrf-name`,
      `http://[::ffff:127.0.0.1]:${rx.port}/ssrf-mapped`,
    ].entries()) {
      // A URL stored before the rules (or by a direct database write) must still be refused.
      const c = await createTestClient(ctx, { productionAccess: true });
      await setMainWebhook(ctx, c.clientId, url);
      const ev = await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { i });
      await dispatcher.drain();
      const [d] = await deliveriesOfEvent(ctx, ev!.id);
      expect(d!.status, url).toBe('retrying');
      expect(d!.lastResponseStatus).toBeNull();
      expect(d!.lastError, url).toMatch(/^refused: /);
    }
    expect(rx.requests).toHaveLength(0);
  });
});
