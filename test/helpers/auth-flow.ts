/**
 * HTTP helpers for the login/registration tests: every step goes through the real routes and the
 * real SMTP capture, never around them.
 */
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext } from './app';
import type { SmtpCapture } from './smtp';

let ipCounter = 0;
/** A fresh client IP so the per-IP login lockout of one test does not leak into the next. */
export const nextIp = () =>
  `10.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}.${1 + Math.floor(Math.random() * 250)}`;

export const uniqueEmail = (prefix = 'user') => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

export function post(
  ctx: TestContext,
  url: string,
  payload?: object,
  opts: { headers?: Record<string, string>; ip?: string } = {},
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: `/api/v1${url}`,
    headers: opts.headers,
    remoteAddress: opts.ip ?? '127.0.0.1',
    ...(payload === undefined ? {} : { payload }),
  });
}

export function get(ctx: TestContext, url: string, headers?: Record<string, string>) {
  return ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
}

export function put(ctx: TestContext, url: string, payload: object, headers?: Record<string, string>) {
  return ctx.app.inject({ method: 'PUT', url: `/api/v1${url}`, headers, payload });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface Registered {
  email: string;
  password: string;
  clientId: string;
}

/** Registers over HTTP and verifies with the code read from the SMTP capture. */
export async function registerVerified(
  ctx: TestContext,
  smtp: SmtpCapture,
  opts: { email?: string; password?: string } = {},
): Promise<Registered> {
  const email = opts.email ?? uniqueEmail('owner');
  const password = opts.password ?? 'correct horse battery';
  const res = await post(ctx, '/auth/register', {
    email,
    password,
    company_name: 'Acme Payments Ltd',
    full_name: 'Ada Owner',
  });
  expect(res.statusCode, res.body).toBe(201);
  const code = await smtp.codeFor(email);
  const v = await post(ctx, '/auth/register/verify-email', { email, code });
  expect(v.statusCode, v.body).toBe(200);
  return { email, password, clientId: res.json().client_id };
}

export interface Session {
  access_token: string;
  refresh_token: string;
  headers: Record<string, string>;
}

export async function loginOk(
  ctx: TestContext,
  email: string,
  password: string,
  ip = nextIp(),
): Promise<Session> {
  const res = await post(ctx, '/auth/login', { client_email: email, password }, { ip });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(body.token_type).toBe('bearer');
  return {
    access_token: body.access_token,
    refresh_token: body.refresh_token,
    headers: bearer(body.access_token),
  };
}

export function expectNoRateLimitHeaders(res: LightMyRequestResponse) {
  for (const h of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    expect(res.headers[h], h).toBeUndefined();
}

export function expect429(res: LightMyRequestResponse, limit: number, seconds: number) {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.headers['retry-after']).toBe(String(seconds));
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
}
