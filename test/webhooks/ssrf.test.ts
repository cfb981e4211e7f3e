/**
 * Outbound-call protection in a production deployment: only public http(s) targets are accepted,
 * and a target that is (or resolves to) a loopback/private/link-local address is refused without
 * a single byte being sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { assertPublicHost, isForbiddenAddress, readAllowedPrivateTargets } from '../../src/outbox/ssrf';
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

describe('private targets an operator allows (SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS)', () => {
  const problems: string[] = [];
  const allow = readAllowedPrivateTargets('10.20.0.0/16, 192.168.7.9, fd00:1::/64, ERP.internal', problems);

  it('reads CIDRs, single addresses and host names', () => {
    expect(problems).toEqual([]);
    expect(allow?.entries).toEqual(['10.20.0.0/16', '192.168.7.9', 'fd00:1::/64', 'erp.internal']);
    expect(readAllowedPrivateTargets(undefined, problems)).toBeNull();
    expect(readAllowedPrivateTargets(' ', problems)).toBeNull();
  });

  it('opens only what is listed; loopback, link-local and the rest of the private ranges stay closed', () => {
    expect(isForbiddenAddress('10.20.3.4', allow)).toBe(false);
    expect(isForbiddenAddress('::ffff:10.20.3.4', allow)).toBe(false);
    expect(isForbiddenAddress('192.168.7.9', allow)).toBe(false);
    expect(isForbiddenAddress('fd00:1::5', allow)).toBe(false);
    expect(isForbiddenAddress('10.21.0.1', allow)).toBe(true);
    expect(isForbiddenAddress('192.168.7.10', allow)).toBe(true);
    expect(isForbiddenAddress('127.0.0.1', allow)).toBe(true);
    expect(isForbiddenAddress('169.254.169.254', allow)).toBe(true);
    expect(isForbiddenAddress('10.20.3.4')).toBe(true);
  });

  it('an allowed host name may resolve to private addresses, never to loopback or link-local', async () => {
    const to = (address: string) => async () => [{ address, family: 4 }];
    await expect(assertPublicHost('erp.internal', to('10.99.0.1'), allow)).resolves.toBeUndefined();
    await expect(assertPublicHost('ERP.internal.', to('10.99.0.1'), allow)).resolves.toBeUndefined();
    await expect(assertPublicHost('erp.internal', to('127.0.0.1'), allow)).rejects.toThrow(/non-public/);
    await expect(assertPublicHost('erp.internal', to('169.254.169.254'), allow)).rejects.toThrow(
      /non-public/,
    );
    await expect(assertPublicHost('other.internal', to('10.99.0.1'), allow)).rejects.toThrow(/non-public/);
    await expect(assertPublicHost('other.internal', to('10.20.0.9'), allow)).resolves.toBeUndefined();
  });

  it('refuses at start what cannot or must not be allowed, naming each entry', () => {
    const bad: string[] = [];
    readAllowedPrivateTargets(
      '127.0.0.0/8,169.254.169.254,localhost,8.8.8.0/24,10.0.0.0/4,fe80::/64,10.1.0.0/x,not a host',
      bad,
    );
    expect(bad).toEqual([
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "127.0.0.0/8" is a loopback, link-local, unspecified or multicast range, which is never allowed',
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "169.254.169.254" is a loopback, link-local, unspecified or multicast range, which is never allowed',
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "localhost" is a loopback name, which is never allowed',
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "8.8.8.0/24" is not a private range (public addresses are allowed already)',
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "10.0.0.0/4" is broader than /8',
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "fe80::/64" is a loopback, link-local, unspecified or multicast range, which is never allowed',
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "10.1.0.0/x" is not a CIDR (10.20.0.0/16), an IP address or a host name',
      'SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "not a host" is not a CIDR (10.20.0.0/16), an IP address or a host name',
    ]);
    expect(() => loadConfig({ ...PRODUCTION_ENV, SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: '127.0.0.1' })).toThrow(
      /SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "127.0.0.1"/,
    );
  });

  it('a production deployment with the setting accepts the listed private targets, and only those', async () => {
    const p = await createTestApp({
      env: { ...PRODUCTION_ENV, SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: '10.20.0.0/16' },
    });
    try {
      const c = await createTestClient(p, { productionAccess: true });
      const create = (url: string) =>
        p.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/destinations',
          headers: c.headers,
          payload: { url },
        });
      expect((await create('http://10.20.3.4/hooks')).statusCode).toBe(201);
      for (const url of ['http://10.21.0.1/hooks', 'http://127.0.0.1/hooks', 'http://169.254.169.254/x']) {
        const r = await create(url);
        expect(r.statusCode, url).toBe(422);
        expect(r.json().detail[0].msg).toBe(M.webhookUrlNotPublic);
      }
    } finally {
      await p.close();
    }
  });
});
