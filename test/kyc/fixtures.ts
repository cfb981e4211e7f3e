/** Fixtures of the KYC/KYB tests: a client with a user and a business customer, links, simulate, staff visibility. */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { clients, verificationSessions } from '../../src/db/schema/index';
import type { TestContext } from '../helpers/app';
import { createTestClient, type TestCaller, type TestClientOptions } from '../helpers/clients';

export interface KycWorld {
  caller: TestCaller;
  userId: string;
  businessId: string;
  email: string;
}

export async function api(
  ctx: TestContext,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: object,
) {
  return ctx.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });
}

export async function createKycWorld(ctx: TestContext, opts: TestClientOptions = {}): Promise<KycWorld> {
  const caller = await createTestClient(ctx, opts);
  const email = `jane-${randomBytes(4).toString('hex')}@example.com`;
  const u = await api(ctx, 'POST', '/kyc/users', caller.headers, {
    email,
    first_name: 'Jane',
    last_name: 'Roe',
  });
  if (u.statusCode !== 201) throw new Error(`user: ${u.body}`);
  const b = await api(ctx, 'POST', '/kyb/businesses', caller.headers, {
    company_name: 'Roe Trading Ltd',
    registration_number: '09876543',
    country: 'GB',
    email: `biz-${randomBytes(4).toString('hex')}@example.com`,
  });
  if (b.statusCode !== 201) throw new Error(`business: ${b.body}`);
  return { caller, userId: u.json().user_id, businessId: b.json().business_customer_id, email };
}

export async function createLink(
  ctx: TestContext,
  w: KycWorld,
  body: Record<string, unknown> = {},
  kind: 'kyc' | 'kyb' = 'kyc',
) {
  const url =
    kind === 'kyc'
      ? `/kyc/users/${w.userId}/verification-link`
      : `/kyb/businesses/${w.businessId}/verification-link`;
  const res = await api(ctx, 'POST', url, w.caller.headers, body);
  if (res.statusCode !== 201) throw new Error(`link ${res.statusCode}: ${res.body}`);
  return res.json() as {
    verification_id: string;
    verification_url: string;
    expires_at: string;
    status: string;
  };
}

export async function simulate(
  ctx: TestContext,
  w: KycWorld,
  verificationId: string,
  outcome: string,
  checks?: Record<string, unknown>,
) {
  return api(ctx, 'POST', `/sandbox/verifications/${verificationId}/simulate`, w.caller.headers, {
    outcome,
    ...(checks ? { checks } : {}),
  });
}

export async function setGroups(ctx: TestContext, clientId: string, groups: string[]) {
  await ctx.db.update(clients).set({ visibilityGroups: groups }).where(eq(clients.id, clientId));
}

export const ALL_GROUPS = ['document_number', 'sof_questionnaire', 'poa', 'aml_hits', 'documents'];

export async function providerRefOf(ctx: TestContext, verificationId: string) {
  const [s] = await ctx.db
    .select({ ref: verificationSessions.providerRef })
    .from(verificationSessions)
    .where(and(eq(verificationSessions.id, verificationId)));
  return s!.ref!;
}

export const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
