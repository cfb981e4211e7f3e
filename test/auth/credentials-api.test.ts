/**
 * API credentials through HTTP: create (role or custom set), list, reset-secret (REFRESH_API_KEY
 * challenge over real SMTP), disable, and the token exchange with its claims and last_used_at.
 */
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { apiCredentials, clients } from '../../src/db/schema/index';
import { M } from '../../src/shared/messages';
import { securityHeaders } from '../helpers/challenge';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp({ client: { role: 'owner' } });

const BASE = '/api/v1/auth/api-credentials';

async function create(body: object, caller: TestCaller = suite.owner) {
  return suite.ctx.app.inject({ method: 'POST', url: BASE, headers: caller.headers, payload: body });
}

async function exchange(api_key: string, api_secret: string) {
  return suite.ctx.app.inject({
    method: 'POST',
    url: '/api/v1/auth/api-token',
    payload: { api_key, api_secret },
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('create and list', () => {
  it('creates a role credential and returns the secret once', async () => {
    const res = await create({ label: 'Checkout backend', role: 'operations' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      label: 'Checkout backend',
      role: 'operations',
      permissions: null,
      disabled: false,
      last_used_at: null,
      created_at: suite.ctx.clock.now().toISOString(),
    });
    expect(body.credential_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.api_key).toMatch(/^pk_sandbox_[0-9a-f]{32}$/);
    expect(body.api_secret).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);

    const list = await suite.ctx.app.inject({ method: 'GET', url: BASE, headers: suite.owner.headers });
    expect(list.statusCode).toBe(200);
    const listed = list
      .json()
      .credentials.find((c: { credential_id: string }) => c.credential_id === body.credential_id);
    expect(listed).toMatchObject({ api_key: body.api_key, role: 'operations', label: 'Checkout backend' });
    expect(list.body).not.toContain(body.api_secret);
    expect(list.body).not.toContain('api_secret');

    // Stored only as a keyed hash.
    const [row] = await suite.ctx.db
      .select()
      .from(apiCredentials)
      .where(eq(apiCredentials.id, body.credential_id));
    expect(row!.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(body.api_secret);
  });

  it('creates a custom permission set, reported as developer plus its permissions', async () => {
    const res = await create({ label: 'Reader', permissions: ['payments.read', 'settings.read'] });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ role: 'developer', permissions: ['payments.read', 'settings.read'] });
  });

  it('requires exactly one of role and permissions, and known permission names', async () => {
    const both = await create({ label: 'x', role: 'owner', permissions: ['payments.read'] });
    expect(both.statusCode).toBe(422);
    expect(both.json().detail[0].loc).toEqual(['body', 'permissions']);
    const neither = await create({ label: 'x' });
    expect(neither.statusCode).toBe(422);
    expect(neither.json().detail[0].loc).toEqual(['body', 'role']);
    const unknown = await create({ label: 'x', permissions: ['payments.read', 'rockets.launch'] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail[0]).toMatchObject({ loc: ['body', 'permissions', 1] });
    expect(unknown.json().detail[0].msg).toContain('rockets.launch');
    const badRole = await create({ label: 'x', role: 'admin' });
    expect(badRole.statusCode).toBe(422);
    expect(badRole.json().detail[0].loc).toEqual(['body', 'role']);
    const blank = await create({ label: '   ', role: 'owner' });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().detail[0].loc).toEqual(['body', 'label']);
    const noLabel = await create({ role: 'owner' });
    expect(noLabel.statusCode).toBe(422);
    expect(noLabel.json().detail[0].loc).toEqual(['body', 'label']);
  });

  it('is owner-only and dashboard-only', async () => {
    for (const role of ['operations', 'developer'] as const) {
      const member = await createTestClient(suite.ctx, { role, clientId: suite.owner.clientId });
      const res = await create({ label: 'x', role: 'developer' }, member);
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(M.insufficientPermissions);
      const list = await suite.ctx.app.inject({ method: 'GET', url: BASE, headers: member.headers });
      expect(list.json().detail).toBe(M.insufficientPermissions);
    }
    const api = await createTestClient(suite.ctx, { apiToken: true, clientId: suite.owner.clientId });
    const res = await create({ label: 'x', role: 'developer' }, api);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(M.dashboardTokenRequired);
  });

  it("lists only the caller's client credentials", async () => {
    const other = await createTestClient(suite.ctx, { role: 'owner' });
    const mine = (await create({ label: 'mine', role: 'developer' })).json();
    const list = await suite.ctx.app.inject({ method: 'GET', url: BASE, headers: other.headers });
    expect(list.json().credentials).toEqual([]);
    const disable = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/${mine.credential_id}/disable`,
      headers: other.headers,
    });
    expect(disable.statusCode).toBe(404);
    expect(disable.json().detail).toBe(M.apiCredentialNotFound);
  });
});

describe('token exchange', () => {
  it('returns the token response with the spec claims, and stamps last_used_at', async () => {
    const cred = (await create({ label: 'claims', role: 'developer' })).json();
    suite.ctx.clock.advanceSeconds(10);
    const res = await exchange(cred.api_key, cred.api_secret);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['retry-after']).toBeUndefined();
    const body = res.json();
    expect(body).toMatchObject({
      token_type: 'bearer',
      client_id: suite.owner.clientId,
      role: 'developer',
      environment: 'sandbox',
      expires_in: 7 * 86400,
    });
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({
      sub: suite.owner.clientId,
      type: 'client_api_access',
      actor_type: 'client_api',
      role: 'developer',
      environment: 'sandbox',
      credential_id: cred.credential_id,
    });
    expect(claims.account_id).toBeUndefined();
    expect(claims.permissions).toBeUndefined();
    expect(typeof claims.jti).toBe('string');
    expect(claims.exp! - claims.iat!).toBe(7 * 86400);

    const list = (
      await suite.ctx.app.inject({ method: 'GET', url: BASE, headers: suite.owner.headers })
    ).json();
    const listed = list.credentials.find(
      (c: { credential_id: string }) => c.credential_id === cred.credential_id,
    );
    expect(listed.last_used_at).toBe(suite.ctx.clock.now().toISOString());

    // The token works on a route the developer role holds, and is refused on one it lacks.
    const ok = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: bearer(body.access_token),
    });
    expect(ok.statusCode).toBe(200);
  });

  it('expires after the configured TTL', async () => {
    const cred = (await create({ label: 'ttl', role: 'owner' })).json();
    const { access_token } = (await exchange(cred.api_key, cred.api_secret)).json();
    suite.ctx.clock.advanceSeconds(7 * 86400 + 1);
    const res = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: bearer(access_token),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(M.couldNotValidate);
    // The owner's 30-minute dashboard token expired too: sign in again.
    suite.owner = await createTestClient(suite.ctx, { role: 'owner', clientId: suite.owner.clientId });
  });

  it('gives a custom credential exactly its permissions', async () => {
    const cred = (await create({ label: 'ro', permissions: ['settings.read'] })).json();
    const { access_token, role } = (await exchange(cred.api_key, cred.api_secret)).json();
    expect(role).toBe('developer');
    expect(decodeJwt(access_token).permissions).toEqual(['settings.read']);
    const read = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: bearer(access_token),
    });
    expect(read.statusCode).toBe(200);
    // settings.write belongs to the developer role, but not to this custom set.
    const write = await suite.ctx.app.inject({
      method: 'PUT',
      url: '/api/v1/auth/client/settings',
      headers: bearer(access_token),
      payload: { webhook_enabled: false },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json().detail).toBe(M.insufficientPermissions);
  });

  it('answers 401 for a wrong secret or an unknown key', async () => {
    const cred = (await create({ label: 'wrong', role: 'developer' })).json();
    const wrong = await exchange(cred.api_key, `${cred.api_secret}x`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().detail).toBe(M.invalidApiKey);
    expect(wrong.headers['www-authenticate']).toBe('Bearer');
    const unknown = await exchange('pk_sandbox_nope', cred.api_secret);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().detail).toBe(M.invalidApiKey);
    const missing = await suite.ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/api-token',
      payload: { api_key: cred.api_key },
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(['body', 'api_secret']);
  });

  it('answers 401 Client is not active for a deactivated client', async () => {
    const c = await createTestClient(suite.ctx, { role: 'owner' });
    const cred = (await create({ label: 'inactive', role: 'owner' }, c)).json();
    await suite.ctx.db.update(clients).set({ isActive: false }).where(eq(clients.id, c.clientId));
    const res = await exchange(cred.api_key, cred.api_secret);
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(M.clientNotActive);
  });
});

describe('disable', () => {
  it('stops exchanges and already-issued tokens at once, idempotently', async () => {
    const cred = (await create({ label: 'to disable', role: 'developer' })).json();
    const { access_token } = (await exchange(cred.api_key, cred.api_secret)).json();
    const before = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: bearer(access_token),
    });
    expect(before.statusCode).toBe(200);

    const res = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/${cred.credential_id}/disable`,
      headers: suite.owner.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      credential_id: cred.credential_id,
      disabled: true,
      disabled_at: suite.ctx.clock.now().toISOString(),
    });
    expect(res.body).not.toContain('api_secret');

    const after = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: bearer(access_token),
    });
    expect(after.statusCode).toBe(401);
    expect(after.json().detail).toBe(M.invalidApiKey);
    const ex = await exchange(cred.api_key, cred.api_secret);
    expect(ex.statusCode).toBe(401);
    expect(ex.json().detail).toBe(M.invalidApiKey);

    const again = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/${cred.credential_id}/disable`,
      headers: suite.owner.headers,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().disabled_at).toBe(res.json().disabled_at);
  });

  it('is 422 for a malformed id and 404 for an unknown one', async () => {
    const bad = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/nope/disable`,
      headers: suite.owner.headers,
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['path', 'credential_id']);
    const unknown = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/0190a000-0000-7000-8000-000000000000/disable`,
      headers: suite.owner.headers,
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('reset-secret', () => {
  const reset = (id: string, headers: Record<string, string>) =>
    suite.ctx.app.inject({ method: 'POST', url: `${BASE}/${id}/reset-secret`, headers });

  it('needs a REFRESH_API_KEY security challenge', async () => {
    const cred = (await create({ label: 'rotate', role: 'developer' })).json();
    const none = await reset(cred.credential_id, suite.owner.headers);
    expect(none.statusCode).toBe(403);
    expect(none.json().detail).toBe(M.securityChallengeRequired);
    const wrongAction = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'ADD_MEMBER');
    const res = await reset(cred.credential_id, wrongAction);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.securityChallengeInvalid);
    const wrongCode = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'REFRESH_API_KEY');
    const bad = await reset(cred.credential_id, {
      ...wrongCode,
      'x-security-code': wrongCode['x-security-code'] === '000000' ? '111111' : '000000',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toBe(M.securityCodeInvalid);
  });

  it('rotates: the old secret and tokens issued before stop at once, the new secret works', async () => {
    const cred = (await create({ label: 'rotate', role: 'developer' })).json();
    const oldToken = (await exchange(cred.api_key, cred.api_secret)).json().access_token;
    suite.ctx.clock.advanceSeconds(1);
    const headers = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'REFRESH_API_KEY');
    const res = await reset(cred.credential_id, headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      credential_id: cred.credential_id,
      api_key: cred.api_key,
      api_secret: expect.stringMatching(/^sk_sandbox_/),
    });
    expect(body.api_secret).not.toBe(cred.api_secret);

    expect((await exchange(cred.api_key, cred.api_secret)).statusCode).toBe(401);
    const old = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: bearer(oldToken),
    });
    expect(old.statusCode).toBe(401);
    expect(old.json().detail).toBe(M.invalidApiKey);
    const fresh = await exchange(cred.api_key, body.api_secret);
    expect(fresh.statusCode).toBe(200);
    const use = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: bearer(fresh.json().access_token),
    });
    expect(use.statusCode).toBe(200);

    // The challenge was single-use.
    const replay = await reset(cred.credential_id, headers);
    expect(replay.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('leaves the challenge unused when the credential is unknown or disabled', async () => {
    const other = await createTestClient(suite.ctx, { role: 'owner' });
    const foreign = (await create({ label: 'foreign', role: 'developer' }, other)).json();
    const headers = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'REFRESH_API_KEY');
    const res = await reset(foreign.credential_id, headers);
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toBe(M.apiCredentialNotFound);

    const cred = (await create({ label: 'disabled', role: 'developer' })).json();
    await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/${cred.credential_id}/disable`,
      headers: suite.owner.headers,
    });
    const disabled = await reset(cred.credential_id, headers);
    expect(disabled.statusCode).toBe(400);
    expect(disabled.json().detail).toBe(M.apiCredentialDisabled);

    const mine = (await create({ label: 'mine', role: 'developer' })).json();
    expect((await reset(mine.credential_id, headers)).statusCode).toBe(200);
  });
});
