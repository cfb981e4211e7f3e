/**
 * A password-spraying burst from one IP (many emails, wrong passwords, all at once) cannot run more
 * argon2 verifications than the IP's failure limit: attempts beyond the limit in flight are refused
 * with 429 before hashing, and once the failures are recorded the database lock refuses the IP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_IP_RULE } from '../../src/modules/auth/login/throttle.service';
import { createTestApp, type TestContext } from '../helpers/app';
import { nextIp, post, uniqueEmail } from '../helpers/auth-flow';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx?.close());

describe('login burst', () => {
  it('runs at most the IP limit of password checks, the rest is 429 before argon2', async () => {
    const ip = nextIp();
    const burst = await Promise.all(
      Array.from({ length: 30 }, () =>
        post(ctx, '/auth/login', { client_email: uniqueEmail('spray'), password: 'wrong-password' }, { ip }),
      ),
    );
    const statuses = burst.map((r) => r.statusCode);
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(LOGIN_IP_RULE.limit);
    expect(statuses.filter((s) => s === 429).length).toBe(30 - checked);
    const refused = burst.find((r) => r.statusCode === 429)!;
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.json().detail).toMatch(/^Too many attempts/);

    // Another IP is not affected by this IP's burst.
    const other = await post(
      ctx,
      '/auth/login',
      { client_email: uniqueEmail(), password: 'wrong-password' },
      { ip: nextIp() },
    );
    expect(other.statusCode).toBe(401);
  });
});
