/**
 * Lockout and rate checks run before argon2: a locked email, a locked IP and attempts beyond the
 * in-flight limits are refused with 429 without one password verification (counted at
 * @node-rs/argon2's `verify`). Verifications never run more at once than the machine has cores.
 */
import os from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { LOGIN_EMAIL_RULE, LOGIN_IP_RULE } from '../../src/modules/auth/login/throttle.service';
import { expect429, nextIp, post, registerVerified, uniqueEmail } from '../helpers/auth-flow';
import { smtpApp } from '../helpers/suites';

const argon = vi.hoisted(() => ({ verifies: 0, running: 0, maxRunning: 0 }));
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const real = await importOriginal<typeof import('@node-rs/argon2')>();
  return {
    ...real,
    verify: async (...args: Parameters<typeof real.verify>) => {
      argon.verifies++;
      argon.running++;
      argon.maxRunning = Math.max(argon.maxRunning, argon.running);
      try {
        return await real.verify(...args);
      } finally {
        argon.running--;
      }
    },
  };
});

const suite = smtpApp();

const login = (email: string, password: string, ip = nextIp()) =>
  post(suite.ctx, '/auth/login', { client_email: email, password }, { ip });

/** The argon2 verifications that `run` caused. */
async function verificationsOf(run: () => Promise<void>): Promise<number> {
  const before = argon.verifies;
  await run();
  return argon.verifies - before;
}

describe('login refusals before argon2', () => {
  it('a locked email is 429 without a verification, even with the right password', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    const failures = await verificationsOf(async () => {
      for (let i = 0; i < LOGIN_EMAIL_RULE.limit; i++)
        expect((await login(r.email, 'wrong password!')).statusCode).toBe(401);
    });
    expect(failures).toBe(LOGIN_EMAIL_RULE.limit);
    const locked = await verificationsOf(async () => {
      for (let i = 0; i < 3; i++)
        expect429(await login(r.email, r.password), LOGIN_EMAIL_RULE.limit, LOGIN_EMAIL_RULE.lockSeconds);
    });
    expect(locked).toBe(0);
  });

  it('a locked IP is 429 without a verification, for any email', async () => {
    const ip = nextIp();
    const r = await registerVerified(suite.ctx, suite.smtp);
    const failures = await verificationsOf(async () => {
      for (let i = 0; i < LOGIN_IP_RULE.limit; i++)
        expect((await login(uniqueEmail('spray'), 'wrong password!', ip)).statusCode).toBe(401);
    });
    expect(failures).toBe(LOGIN_IP_RULE.limit);
    const locked = await verificationsOf(async () => {
      for (const email of [uniqueEmail('spray'), uniqueEmail('spray'), r.email])
        expect429(await login(email, r.password, ip), LOGIN_IP_RULE.limit, LOGIN_IP_RULE.lockSeconds);
    });
    expect(locked).toBe(0);
    // The account itself is not locked: from another IP it signs in.
    expect((await login(r.email, r.password)).statusCode).toBe(200);
  });

  it('a burst runs one verification per answered attempt, never more at once than cores', async () => {
    const ip = nextIp();
    argon.maxRunning = 0;
    let statuses: number[] = [];
    const verified = await verificationsOf(async () => {
      const burst = await Promise.all(
        Array.from({ length: 40 }, () => login(uniqueEmail('spray'), 'wrong password!', ip)),
      );
      statuses = burst.map((res) => res.statusCode);
    });
    const checked = statuses.filter((s) => s === 401).length;
    expect(statuses.filter((s) => s === 429).length).toBe(40 - checked);
    expect(verified).toBe(checked);
    expect(verified).toBeLessThanOrEqual(LOGIN_IP_RULE.limit);
    expect(argon.maxRunning).toBeGreaterThan(0);
    expect(argon.maxRunning).toBeLessThanOrEqual(os.availableParallelism());
  });

  it('recorded failures and attempts in flight share the limit: one short of the lock, a burst runs one verification', async () => {
    const ip = nextIp();
    const recorded = await verificationsOf(async () => {
      for (let i = 0; i < LOGIN_IP_RULE.limit - 1; i++)
        expect((await login(uniqueEmail('spray'), 'wrong password!', ip)).statusCode).toBe(401);
    });
    expect(recorded).toBe(LOGIN_IP_RULE.limit - 1);
    let statuses: number[] = [];
    const verified = await verificationsOf(async () => {
      const burst = await Promise.all(
        Array.from({ length: 5 }, () => login(uniqueEmail('spray'), 'wrong password!', ip)),
      );
      statuses = burst.map((res) => res.statusCode);
    });
    expect(verified).toBe(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
  });
});
