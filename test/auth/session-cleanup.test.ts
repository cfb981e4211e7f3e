import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { purgeExpiredAuthRows } from '../../src/modules/auth/sessions/auth-cleanup.worker';
import { get, loginOk, post, registerVerified } from '../helpers/auth-flow';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp();

const count = async (table: string) =>
  rowsOf<{ n: number }>(await suite.ctx.db.execute(sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;

describe('auth cleanup worker', () => {
  it('keeps what revocation needs, purges what can no longer matter', async () => {
    const u = await registerVerified(suite.ctx, suite.smtp);
    const a = await loginOk(suite.ctx, u.email, u.password);
    const b = await loginOk(suite.ctx, u.email, u.password);
    await post(suite.ctx, '/auth/logout', { refresh_token: a.refresh_token }, { headers: a.headers });
    await post(
      suite.ctx,
      '/auth/login',
      { client_email: u.email, password: 'wrong password' },
      { ip: '198.51.100.7' },
    );

    // Nothing is due yet: the revoked token and the revoked session still guard access.
    await purgeExpiredAuthRows(suite.ctx.deps);
    expect(await count('revoked_tokens')).toBe(1);
    expect(await count('refresh_sessions')).toBe(2);
    expect((await get(suite.ctx, '/auth/me', a.headers)).statusCode).toBe(401);

    // A day later: the revoked access token expired long ago, the revoked session is gone;
    // the live session (b) stays; the stale failure counters go.
    suite.ctx.clock.advanceSeconds(24 * 3600 + 1);
    while ((await purgeExpiredAuthRows(suite.ctx.deps)) > 0);
    expect(await count('revoked_tokens')).toBe(0);
    expect(await count('refresh_sessions')).toBe(1);
    expect(await count('email_verifications')).toBe(0);
    expect(await count('auth_throttles')).toBe(0);
    expect((await post(suite.ctx, '/auth/refresh', { refresh_token: b.refresh_token })).statusCode).toBe(200);
    // The old access token stays unusable: it expired.
    expect((await get(suite.ctx, '/auth/me', a.headers)).statusCode).toBe(401);
  });
});
