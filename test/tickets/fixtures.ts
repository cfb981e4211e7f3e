/** Support-ticket test helpers: callers, staff, and one-line API calls. */
import type { TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';

export const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

/** Minimal real files of each allowed kind. */
export const FILES = {
  pdf: Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'),
  png: Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  ),
  jpeg: Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
  ]),
  exe: Buffer.from([
    0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00,
  ]),
  zip: Buffer.from([
    0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0x00, 0x00,
  ]),
};

export function api(ctx: TestContext) {
  return (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

export async function openTicket(ctx: TestContext, caller: TestCaller, extra: Record<string, unknown> = {}) {
  const res = await api(ctx)('POST', '/tickets', caller.headers, {
    subject: 'Payouts are late',
    body: 'Our payouts from yesterday have not arrived.',
    category: 'payments',
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`ticket create failed ${res.statusCode}: ${res.body}`);
  return res.json() as { ticket_id: string; number: number; status: string; [k: string]: unknown };
}

/** A fresh token for the same account (tests that move the clock by days outlive the 30-minute tokens). */
export async function renewToken(ctx: TestContext, caller: TestCaller): Promise<void> {
  const { signToken } = await import('../../src/modules/auth/sessions/tokens.service');
  const signed = await signToken(
    ctx.deps.secrets.jwtKey,
    {
      sub: caller.clientId,
      type: 'client_access',
      actor_type: 'client_user',
      role: caller.role,
      account_id: caller.accountId,
      environment: ctx.config.environment,
    },
    1800,
    ctx.clock.now(),
  );
  caller.token = signed.token;
  caller.headers.authorization = `Bearer ${signed.token}`;
}

/** A fresh staff token (same account). */
export async function renewStaff(
  ctx: TestContext,
  staff: { email: string; password: string; headers: Record<string, string> },
) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/admin/auth/login',
    payload: { email: staff.email, password: staff.password },
  });
  staff.headers.authorization = `Bearer ${res.json().access_token}`;
}
