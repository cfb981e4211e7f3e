/** Payment fixtures inserted directly (the opcos/projects/users endpoints belong to another feature). */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import {
  businessCustomers,
  clients,
  kycUsers,
  type OpcoStatus,
  opcos,
  projects,
} from '../../src/db/schema/index';
import type { TestContext } from '../helpers/app';
import { createTestClient, type TestCaller, type TestClientOptions } from '../helpers/clients';

export interface PaymentWorld {
  caller: TestCaller;
  opcoId: string;
  projectId: string;
  userId: string;
  businessCustomerId: string;
}

export async function insertOpco(
  ctx: TestContext,
  clientId: string,
  o: { status?: OpcoStatus; subTppId?: string | null } = {},
) {
  const [opco] = await ctx.db
    .insert(opcos)
    .values({
      clientId,
      status: o.status ?? 'activated',
      opcoType: 'licensed_tpp_sole_trader',
      name: 'Acme Payments',
      domain: 'acme.example.com',
      countryCode: 'GB',
      registrationNumber: '12345678',
      primaryUseCase: 'ecommerce',
      settlementIban: 'GB82WEST12345698765432',
      mcc: '5999',
      subTppId: o.subTppId === undefined ? `stpp_${randomBytes(4).toString('hex')}` : o.subTppId,
    })
    .returning({ id: opcos.id });
  return opco!.id;
}

export async function insertProject(
  ctx: TestContext,
  clientId: string,
  opcoId: string | null,
  isFrozen = false,
) {
  const [p] = await ctx.db
    .insert(projects)
    .values({ clientId, projectName: 'Main shop', opcoId, isFrozen })
    .returning({ id: projects.id });
  return p!.id;
}

export async function insertUser(ctx: TestContext, clientId: string) {
  const [u] = await ctx.db
    .insert(kycUsers)
    .values({ clientId, email: `payer-${randomBytes(4).toString('hex')}@example.com`, firstName: 'Pat' })
    .returning({ id: kycUsers.id });
  return u!.id;
}

export async function insertBusiness(ctx: TestContext, clientId: string) {
  const [b] = await ctx.db
    .insert(businessCustomers)
    .values({
      clientId,
      companyName: 'Payer Ltd',
      country: 'GB',
      email: `biz-${randomBytes(4).toString('hex')}@example.com`,
    })
    .returning({ id: businessCustomers.id });
  return b!.id;
}

export async function createPaymentWorld(
  ctx: TestContext,
  opts: TestClientOptions = {},
): Promise<PaymentWorld> {
  const caller = await createTestClient(ctx, opts);
  const opcoId = await insertOpco(ctx, caller.clientId);
  const projectId = await insertProject(ctx, caller.clientId, opcoId);
  const userId = await insertUser(ctx, caller.clientId);
  const businessCustomerId = await insertBusiness(ctx, caller.clientId);
  return { caller, opcoId, projectId, userId, businessCustomerId };
}

export async function setClient(
  ctx: TestContext,
  clientId: string,
  set: Partial<typeof clients.$inferInsert>,
) {
  await ctx.db.update(clients).set(set).where(eq(clients.id, clientId));
}

let keySeq = 0;
export const newKey = () => `key-${Date.now()}-${++keySeq}-${randomBytes(3).toString('hex')}`;

export function paylinkBody(w: PaymentWorld, extra: Record<string, unknown> = {}) {
  return { amount: '125.50', currency: 'EUR', project_id: w.projectId, user_id: w.userId, ...extra };
}

export async function createPaylink(
  ctx: TestContext,
  w: PaymentWorld,
  extra: Record<string, unknown> = {},
  key = newKey(),
) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...w.caller.headers, 'x-idempotency-key': key },
    payload: paylinkBody(w, extra),
  });
  if (res.statusCode !== 201) throw new Error(`paylink failed ${res.statusCode}: ${res.body}`);
  return res.json() as {
    transaction_id: string;
    checkout_url: string;
    ref_id: string;
    status: string;
    expires_at: string;
    amount: string;
    [k: string]: unknown;
  };
}

export async function simulate(ctx: TestContext, w: PaymentWorld, id: string, providerStatus: string) {
  return ctx.app.inject({
    method: 'POST',
    url: `/api/v1/sandbox/transactions/${id}/simulate`,
    headers: w.caller.headers,
    payload: { provider_status: providerStatus },
  });
}

export const tokenOf = (checkoutUrl: string) => new URL(checkoutUrl).pathname.split('/').pop()!;

/** Drives the hosted checkout's bank choice (like the payer's form post). Returns the bank authorization URL. */
export async function pickBank(
  ctx: TestContext,
  checkoutUrl: string,
  bankId = 'sandbox-bank',
): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/checkout/${tokenOf(checkoutUrl)}/bank`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `bank_id=${bankId}`,
  });
  if (res.statusCode !== 303)
    throw new Error(`bank pick failed ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return res.headers.location as string;
}
