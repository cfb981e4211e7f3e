/**
 * Passes a security challenge the real way: POST /auth/security/request-code (method email), read
 * the code from the SMTP capture, and return the three X-Security-* headers for the protected call.
 */
import { eq } from 'drizzle-orm';
import { accounts } from '../../src/db/schema/index';
import type { SecurityAction } from '../../src/modules/auth/security-challenges/security-challenges.service';
import type { TestContext } from './app';
import type { TestCaller } from './clients';
import type { SmtpCapture } from './smtp';

export async function emailOf(ctx: TestContext, accountId: string): Promise<string> {
  const [a] = await ctx.db.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId));
  if (!a) throw new Error(`no account ${accountId}`);
  return a.email;
}

export async function securityHeaders(
  ctx: TestContext,
  smtp: SmtpCapture,
  caller: TestCaller,
  action: SecurityAction,
): Promise<Record<string, string>> {
  const before = smtp.messages.length;
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/auth/security/request-code',
    headers: caller.headers,
    payload: { action, method: 'email' },
  });
  if (res.statusCode !== 200) throw new Error(`request-code failed: ${res.statusCode} ${res.body}`);
  const email = await emailOf(ctx, caller.accountId);
  // Wait for this challenge's own message (not an earlier one to the same address).
  const deadline = Date.now() + 3000;
  while (smtp.messages.length <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const code = await smtp.codeFor(email);
  return {
    ...caller.headers,
    'x-security-token': res.json().challenge_token,
    'x-security-code': code,
    'x-security-method': 'email',
  };
}
