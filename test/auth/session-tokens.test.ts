import { and, eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { accounts, activityLogs, refreshSessions, refreshTokens } from '../../src/db/schema/index';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import { M } from '../../src/shared/messages';
import { createTestApp } from '../helpers/app';
import { bearer, get, loginOk, post, type Registered, registerVerified } from '../helpers/auth-flow';
import { createTestClient } from '../helpers/clients';
import { recordStatements } from '../helpers/statement-count';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp();
let user: Registered;
beforeAll(async () => {
  user = await registerVerified(suite.ctx, suite.smtp);
});

const refresh = (refresh_token: string) => post(suite.ctx, '/auth/refresh', { refresh_token });
const me = (headers: Record<string, string>) => get(suite.ctx, '/auth/me', headers);

describe('access token', () => {
  it('carries the spec claims plus environment, token id and session id; lives 30 minutes', async () => {
    const s = await loginOk(suite.ctx, user.email, user.password);
    const claims = decodeJwt(s.access_token);
    const [account] = await suite.ctx.db.select().from(accounts).where(eq(accounts.clientId, user.clientId));
    expect(claims).toMatchObject({
      sub: user.clientId,
      type: 'client_access',
      actor_type: 'client_user',
      role: 'owner',
      account_id: account!.id,
      environment: 'sandbox',
    });
    expect(claims.jti).toEqual(expect.any(String));
    expect(claims.sid).toEqual(expect.any(String));
    expect(claims.exp! - claims.iat!).toBe(1800);

    const res = await me(s.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      role: 'owner',
      actor_type: 'client_user',
      environment: 'sandbox',
      account: { account_id: account!.id, email: user.email },
      client: { client_id: user.clientId, status: 'active' },
    });
    expect(res.json().permissions).toContain('mfa.defaults.write');

    suite.ctx.clock.advanceSeconds(1799);
    expect((await me(s.headers)).statusCode).toBe(200);
    suite.ctx.clock.advanceSeconds(1);
    const expired = await me(s.headers);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().detail).toBe(M.couldNotValidate);
  });

  it('rejects a token signed for the other environment with 401', async () => {
    const [account] = await suite.ctx.db.select().from(accounts).where(eq(accounts.clientId, user.clientId));
    const other = await signToken(
      suite.ctx.deps.secrets.jwtKey,
      {
        sub: user.clientId,
        type: 'client_access',
        actor_type: 'client_user',
        role: 'owner',
        account_id: account!.id,
        environment: 'production',
      },
      1800,
      suite.ctx.clock.now(),
    );
    const res = await me(bearer(other.token));
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(M.couldNotValidate);
  });

  it('describes an API credential caller without an account', async () => {
    const api = await createTestClient(suite.ctx, { role: 'developer', apiToken: true });
    const res = await me(api.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ account: null, role: 'developer', actor_type: 'client_api' });
  });
});

describe('refresh', () => {
  it('rotates: the new pair works, the old refresh token is spent', async () => {
    const s = await loginOk(suite.ctx, user.email, user.password);
    suite.ctx.clock.advanceSeconds(60);
    const r1 = await refresh(s.refresh_token);
    expect(r1.statusCode, r1.body).toBe(200);
    const pair = r1.json();
    expect(pair).toMatchObject({ token_type: 'bearer', expires_in: 1800 });
    expect(pair.refresh_token).not.toBe(s.refresh_token);
    expect(decodeJwt(pair.access_token).sid).toBe(decodeJwt(s.access_token).sid);
    expect((await me(bearer(pair.access_token))).statusCode).toBe(200);
    const r2 = await refresh(pair.refresh_token);
    expect(r2.statusCode).toBe(200);
  });

  it('reuse of a rotated token is 400 and revokes the whole session', async () => {
    const s = await loginOk(suite.ctx, user.email, user.password);
    const r1 = (await refresh(s.refresh_token)).json();
    const reuse = await refresh(s.refresh_token);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().detail).toBe(M.invalidRefreshToken);
    // The legitimate latest token is dead too, and so are the session's access tokens.
    const latest = await refresh(r1.refresh_token);
    expect(latest.statusCode).toBe(400);
    expect(latest.json().detail).toBe(M.invalidRefreshToken);
    const revoked = await me(bearer(r1.access_token));
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().detail).toBe(M.tokenRevoked);
    expect((await me(s.headers)).statusCode).toBe(401);
    // Other sessions of the same account are untouched.
    const other = await loginOk(suite.ctx, user.email, user.password);
    expect((await refresh(other.refresh_token)).statusCode).toBe(200);
  });

  it('is 400 for a malformed, unknown or expired (30 days) refresh token', async () => {
    for (const bad of ['x', 'not-a-real-refresh-token-0123456789']) {
      const res = await refresh(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toBe(M.invalidRefreshToken);
    }
    expect((await post(suite.ctx, '/auth/refresh', {})).statusCode).toBe(422);
    const s = await loginOk(suite.ctx, user.email, user.password);
    suite.ctx.clock.advanceSeconds(30 * 86400 - 1);
    const fresh = (await refresh(s.refresh_token)).json();
    suite.ctx.clock.advanceSeconds(30 * 86400);
    const expired = await refresh(fresh.refresh_token);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().detail).toBe(M.invalidRefreshToken);
  });

  it('refuses to refresh for a deactivated account', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    const s = await loginOk(suite.ctx, r.email, r.password);
    await suite.ctx.db.update(accounts).set({ isActive: false }).where(eq(accounts.clientId, r.clientId));
    const res = await refresh(s.refresh_token);
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(M.accountNotActive);
  });
});

describe('logout', () => {
  it('revokes the access token: 401 Token has been revoked, also on a second node', async () => {
    const node2 = await createTestApp({ mailer: suite.smtp.mailer, database: suite.ctx.deps.database });
    try {
      node2.clock.set(suite.ctx.clock.now());
      const s = await loginOk(suite.ctx, user.email, user.password);
      const onNode2 = () => node2.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: s.headers });
      expect((await onNode2()).statusCode).toBe(200);
      const out = await post(suite.ctx, '/auth/logout', undefined, { headers: s.headers });
      expect(out.statusCode, out.body).toBe(200);
      expect(out.json()).toEqual({ logged_out: true });
      for (const res of [await me(s.headers), await onNode2()]) {
        expect(res.statusCode).toBe(401);
        expect(res.json().detail).toBe(M.tokenRevoked);
        expect(res.headers['www-authenticate']).toBe(
          'Bearer error="invalid_token", error_description="The access token was revoked"',
        );
      }
      // Without refresh_token the refresh session survives.
      expect((await refresh(s.refresh_token)).statusCode).toBe(200);
    } finally {
      await node2.close();
    }
  });

  it('with its own refresh token also ends the refresh session', async () => {
    const s = await loginOk(suite.ctx, user.email, user.password);
    const out = await post(
      suite.ctx,
      '/auth/logout',
      { refresh_token: s.refresh_token },
      { headers: s.headers },
    );
    expect(out.statusCode, out.body).toBe(200);
    const res = await refresh(s.refresh_token);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.invalidRefreshToken);
  });

  it('accepts the session refresh token after a refresh (same session)', async () => {
    const s = await loginOk(suite.ctx, user.email, user.password);
    const pair = (await refresh(s.refresh_token)).json();
    const out = await post(
      suite.ctx,
      '/auth/logout',
      { refresh_token: pair.refresh_token },
      { headers: bearer(pair.access_token) },
    );
    expect(out.statusCode, out.body).toBe(200);
    expect((await me(s.headers)).statusCode).toBe(401);
  });

  it('is 400 when the refresh token belongs to another session, and revokes nothing', async () => {
    const a = await loginOk(suite.ctx, user.email, user.password);
    const b = await loginOk(suite.ctx, user.email, user.password);
    const res = await post(
      suite.ctx,
      '/auth/logout',
      { refresh_token: b.refresh_token },
      { headers: a.headers },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.refreshTokenMismatch);
    expect((await me(a.headers)).statusCode).toBe(200);
    expect((await refresh(b.refresh_token)).statusCode).toBe(200);
  });

  it('needs a valid bearer token (401)', async () => {
    const res = await post(suite.ctx, '/auth/logout', {});
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(M.couldNotValidate);
  });

  it('an API credential token can be revoked too', async () => {
    const api = await createTestClient(suite.ctx, { role: 'owner', apiToken: true });
    expect((await post(suite.ctx, '/auth/logout', undefined, { headers: api.headers })).statusCode).toBe(200);
    expect((await me(api.headers)).statusCode).toBe(401);
    const other = await createTestClient(suite.ctx, { apiToken: true });
    const withRefresh = await post(
      suite.ctx,
      '/auth/logout',
      { refresh_token: 'abc' },
      { headers: other.headers },
    );
    expect(withRefresh.statusCode).toBe(400);
    expect(withRefresh.json().detail).toBe(M.notDashboardToken);
  });
});

describe('what a login costs (issue 12)', () => {
  it('three statements and no explicit transaction; the session, its refresh token, the last login and the entry all commit', async () => {
    await loginOk(suite.ctx, user.email, user.password); // warm
    const log = recordStatements();
    let s: Awaited<ReturnType<typeof loginOk>>;
    try {
      s = await loginOk(suite.ctx, user.email, user.password);
    } finally {
      log.stop();
    }
    // throttle rows; the account with its client; the session with everything it writes.
    expect(log.texts).toHaveLength(3);
    expect(log.texts.some((t) => /^\s*(begin|commit)/i.test(t))).toBe(false);

    const sid = decodeJwt(s.access_token).sid as string;
    const [session] = await suite.ctx.db.select().from(refreshSessions).where(eq(refreshSessions.id, sid));
    expect(session).toMatchObject({ clientId: user.clientId, revokedAt: null });
    const tokens = await suite.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, sid));
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.tokenHash).not.toContain(s.refresh_token);
    expect(tokens[0]!.expiresAt.getTime() - session!.createdAt.getTime()).toBe(30 * 24 * 3600 * 1000);
    const [account] = await suite.ctx.db.select().from(accounts).where(eq(accounts.id, session!.accountId));
    expect(account!.lastLoginAt).toEqual(session!.createdAt);
    const [entry] = await suite.ctx.db
      .select()
      .from(activityLogs)
      .where(
        and(
          eq(activityLogs.action, 'login.succeeded'),
          sql`${activityLogs.metadata}->>'session_id' = ${sid}`,
        ),
      );
    expect(entry).toMatchObject({
      clientId: user.clientId,
      targetId: account!.id,
      actorType: 'client_user',
      actorEmail: user.email,
      method: 'POST',
      path: '/api/v1/auth/login',
      metadata: { session_id: sid },
    });
    // The refresh token handed out works.
    const r = await refresh(s.refresh_token);
    expect(r.statusCode, r.body).toBe(200);
  });
});
