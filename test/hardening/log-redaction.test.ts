/**
 * What never reaches a log line: query strings and capability tokens in URLs (the route pattern is
 * logged), mail bodies (the local mailer logs metadata), SQL parameter values and the database's
 * quoted values. The suite-wide scan (test/helpers/setup.ts) then checks this file's logs for every
 * password, code, token and secret it used; a planted leak proves the scan finds one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalMailer } from '../../src/providers/mail/local';
import { createTestApp, type TestContext } from '../helpers/app';
import { loginOk, post, registerVerified } from '../helpers/auth-flow';
import {
  capturedLogLines,
  captureLogger,
  findLeaks,
  forgetSecret,
  harvestedSecretCount,
  isRemembered,
  rememberSecret,
} from '../helpers/log-capture';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';
import { createPaylink, createPaymentWorld } from '../payments/fixtures';

let ctx: TestContext;
let smtp: SmtpCapture;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  ctx = await createTestApp({
    mailer: smtp.mailer,
    register: (app) => {
      app.get('/test/sql-error', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
        await ctx.db.execute(sql`select ${'param-value-7f3a9c'}::int`);
        return {};
      });
      app.get('/test/unique-violation', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
        await ctx.db.execute(sql`create temporary table if not exists t_dup (email text unique)`);
        await ctx.db.execute(sql`insert into t_dup values (${'dup-person@example.org'})`);
        await ctx.db.execute(sql`insert into t_dup values (${'dup-person@example.org'})`);
        return {};
      });
    },
  });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const logText = () => capturedLogLines().join('');
const logLines = () => capturedLogLines().map((l) => JSON.parse(l) as Record<string, unknown>);

describe('request logs', () => {
  it('log the route pattern, never the query string', async () => {
    const secret = 'qs-secret-4b1d2e3f5a6c7d8e';
    await ctx.app.inject({ url: `/api/v1/auth/me?access_token=${secret}&x=1` });
    expect(logText()).not.toContain(secret);
    expect(isRemembered(secret)).toBe(true);
    const line = logLines().find(
      (l) =>
        (l.req as { url?: string } | undefined)?.url === '/api/v1/auth/me' && l.msg === 'incoming request',
    );
    expect(line).toBeDefined();
  });

  it('keep capability tokens of hosted pages and triggers out of logged URLs', async () => {
    const world = await createPaymentWorld(ctx);
    const link = await createPaylink(ctx, world);
    const token = new URL(link.checkout_url).pathname.split('/').pop()!;
    expect((await ctx.app.inject({ url: `/checkout/${token}` })).statusCode).toBe(200);
    await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/workflow-triggers/${'t'.repeat(12)}${token}`,
      payload: {},
    });
    expect(logText()).not.toContain(token);
    const urls = logLines().map((l) => (l.req as { url?: string } | undefined)?.url);
    expect(urls).toContain('/checkout/:token');
    expect(urls).toContain('/api/v1/workflow-triggers/:trigger_token');
  });

  it('mask opaque segments of unmatched URLs', async () => {
    const token = 'AbCdEf0123456789GhIjKl';
    await ctx.app.inject({ url: `/no/such/${token}/route?code=123456` });
    expect(logText()).not.toContain(token);
    expect(logText()).toContain('/no/such/***/route');
  });
});

describe('database errors', () => {
  it('log the SQL without parameter values', async () => {
    expect((await ctx.app.inject({ url: '/test/sql-error' })).statusCode).toBe(500);
    expect(logText()).not.toContain('param-value-7f3a9c');
    const err = logLines().find((l) => l.msg === 'unhandled error')?.err as Record<string, unknown>;
    expect(err.message).toMatch(/^Failed query: select \$1::int/);
    expect(err.params).toBe('[1 redacted]');
    expect((err.cause as Record<string, unknown>).sqlstate).toBe('22P02');
  });

  it('log a constraint violation without the database detail that quotes the value', async () => {
    expect((await ctx.app.inject({ url: '/test/unique-violation' })).statusCode).toBe(500);
    expect(logText()).not.toContain('dup-person@example.org');
    const errs = logLines().filter((l) => l.msg === 'unhandled error');
    const err = errs[errs.length - 1]!.err as Record<string, unknown>;
    const cause = err.cause as Record<string, unknown>;
    expect(cause.sqlstate).toBe('23505');
    expect(cause.constraint).toBe('t_dup_email_key');
    expect(cause.detail).toBeUndefined();
  });
});

describe('mail', () => {
  it('the local mailer logs recipient, subject and file; the body stays in the .eml file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mail-'));
    const mailer = createLocalMailer(dir, 'Test <no-reply@example.test>', captureLogger('trace'));
    await mailer.send({ to: 'someone@example.org', subject: 'Your code', text: 'Your code is 864209.' });
    const line = logLines().find((l) => l.msg === 'email written to local mail folder');
    expect(line?.mail).toMatchObject({ to: 'someone@example.org', subject: 'Your code' });
    const file = (line!.mail as { file: string }).file;
    expect(fs.readFileSync(file, 'utf8')).toContain('864209');
    expect(logText()).not.toContain('864209');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('the suite-wide secret scan', () => {
  it('harvests what a real sign-up and login hand out: codes, passwords, tokens', async () => {
    const before = harvestedSecretCount();
    const reg = await registerVerified(ctx, smtp);
    const session = await loginOk(ctx, reg.email, reg.password);
    expect(isRemembered(reg.password)).toBe(true);
    expect(isRemembered(session.access_token)).toBe(true);
    expect(isRemembered(session.refresh_token)).toBe(true);
    expect(isRemembered(await smtp.codeFor(reg.email))).toBe(true);
    expect(harvestedSecretCount()).toBeGreaterThan(before + 3);
    const wrong = await post(ctx, '/auth/login', {
      client_email: reg.email,
      password: 'wrong-password-93ad',
    });
    expect(wrong.statusCode).toBe(401);
    expect(isRemembered('wrong-password-93ad')).toBe(true);
  });

  it('finds a secret that reaches a log line', () => {
    const planted = 'planted-secret-0c9e8d7f';
    rememberSecret(planted, 'planted');
    ctx.deps.log.info({ note: `oops ${planted}` }, 'a careless line');
    expect(findLeaks().map((l) => l.source)).toEqual(['planted']);
    forgetSecret(planted);
    expect(findLeaks()).toEqual([]);
  });
});
