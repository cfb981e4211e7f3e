/** Client settings (callback_url, webhook_url, webhook_enabled) through HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';

let ctx: TestContext;
let owner: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx, { role: 'owner', callbackUrl: 'https://shop.example/return' });
});
afterAll(() => ctx.close());

const URL_ = '/api/v1/auth/client/settings';
const get = (caller: TestCaller = owner) => ctx.app.inject({ url: URL_, headers: caller.headers });
const put = (payload: object, caller: TestCaller = owner) =>
  ctx.app.inject({ method: 'PUT', url: URL_, headers: caller.headers, payload });

describe('client settings', () => {
  it('reads the settings', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      callback_url: 'https://shop.example/return',
      webhook_url: null,
      webhook_enabled: false,
    });
  });

  it('updates partially; null clears a URL', async () => {
    const a = await put({ webhook_url: 'https://shop.example/hooks', webhook_enabled: true });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toEqual({
      callback_url: 'https://shop.example/return',
      webhook_url: 'https://shop.example/hooks',
      webhook_enabled: true,
      // the first answer that sets a webhook URL shows the main signing secret, once
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    const b = await put({ callback_url: null });
    expect(b.json()).toEqual({
      callback_url: null,
      webhook_url: 'https://shop.example/hooks',
      webhook_enabled: true,
    });
    const c = await put({ callback_url: 'http://localhost:3000/done?x=1' });
    expect(c.json().callback_url).toBe('http://localhost:3000/done?x=1');
    expect((await get()).json()).toEqual(c.json());
  });

  it('requires a webhook_url while the webhook is enabled', async () => {
    const fresh = await createTestClient(ctx, { role: 'owner' });
    const enable = await put({ webhook_enabled: true }, fresh);
    expect(enable.statusCode).toBe(400);
    expect(enable.json().detail).toBe(M.webhookUrlRequired);
    const both = await put({ webhook_enabled: true, webhook_url: null }, fresh);
    expect(both.json().detail).toBe(M.webhookUrlRequired);
    expect((await put({ webhook_enabled: true, webhook_url: 'https://a.example/h' }, fresh)).statusCode).toBe(
      200,
    );
    const clear = await put({ webhook_url: null }, fresh);
    expect(clear.statusCode).toBe(400);
    expect(clear.json().detail).toBe(M.webhookUrlRequired);
    // Nothing changed by the refused requests.
    expect((await get(fresh)).json()).toMatchObject({
      webhook_url: 'https://a.example/h',
      webhook_enabled: true,
    });
    // Disabling and clearing together is fine.
    const off = await put({ webhook_enabled: false, webhook_url: null }, fresh);
    expect(off.json()).toMatchObject({ webhook_url: null, webhook_enabled: false });
  });

  it('rejects URLs that are not absolute http(s) with 422 and loc', async () => {
    for (const [field, value] of [
      ['callback_url', '/relative/path'],
      ['callback_url', 'ftp://files.example/x'],
      ['webhook_url', 'javascript:alert(1)'],
      ['webhook_url', 'https://user:pass@hooks.example/x'],
      ['webhook_url', 'https://'],
    ] as const) {
      const res = await put({ [field]: value });
      expect(res.statusCode, `${field}=${value}`).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', field]);
    }
    const extra = await put({ webhook_secret: 'x' });
    expect(extra.statusCode).toBe(422);
    expect(extra.json().detail[0].loc).toEqual(['body', 'webhook_secret']);
    expect((await put({})).statusCode).toBe(422);
    // An empty string clears, like null.
    const cleared = await put({ callback_url: '' });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().callback_url).toBeNull();
  });

  it('follows the permission matrix: all roles read, owner and developer write', async () => {
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    expect((await get(ops)).statusCode).toBe(200);
    const denied = await put({ webhook_enabled: false }, ops);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail).toBe(M.insufficientPermissions);
    expect((await put({ webhook_enabled: false }, dev)).statusCode).toBe(200);
    // API-credential tokens may manage settings (not dashboard-only).
    const api = await createTestClient(ctx, { apiToken: true, role: 'developer', clientId: owner.clientId });
    expect((await put({ callback_url: 'https://shop.example/r2' }, api)).statusCode).toBe(200);
  });

  it("never shows or changes another client's settings", async () => {
    const other = await createTestClient(ctx, { role: 'owner', callbackUrl: 'https://other.example/r' });
    await put({ callback_url: 'https://mine.example/r' });
    expect((await get(other)).json().callback_url).toBe('https://other.example/r');
  });
});
