/** Transaction-monitoring test helpers: one-line API calls, rules, transactions and customers. */
import { and, eq } from 'drizzle-orm';
import {
  businessCustomers,
  type KybStatus,
  type KycStatus,
  kycUsers,
  monitoredTransactions,
  monitoringSanctionsAllowlist,
} from '../../src/db/schema/index';
import type { TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';

export type Json = Record<string, unknown>;

export function api(ctx: TestContext) {
  return (method: string, url: string, caller: TestCaller | Record<string, string>, payload?: unknown) =>
    ctx.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: 'headers' in caller ? (caller.headers as Record<string, string>) : caller,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

let seq = 0;
export const ref = (prefix = 'tx') => `${prefix}-${Date.now().toString(36)}-${++seq}`;

export function txBody(extra: Json = {}): Json {
  return {
    client_reference: ref(),
    direction: 'outbound',
    amount: '100.00',
    currency: 'EUR',
    payment_method: 'bank_transfer',
    customer: { external_id: `cust-${++seq}`, name: 'Jane Customer', country: 'DE' },
    counterparty: {
      name: 'Bob Counterparty',
      type: 'natural',
      country: 'FR',
      account_identifier: 'FR7612345',
    },
    ...extra,
  };
}

export function rule(rule_id: string, type: string, params: Json, extra: Json = {}): Json {
  return { rule_id, name: `Rule ${rule_id}`, type, params, action: 'review', ...extra };
}

export async function putPolicy(ctx: TestContext, caller: TestCaller, policy: Json) {
  const res = await api(ctx)('PUT', '/monitoring/policy', caller, policy);
  if (res.statusCode !== 200) throw new Error(`policy ${res.statusCode}: ${res.body}`);
  return res.json() as Json & { version: number };
}

export async function submit(ctx: TestContext, caller: TestCaller, body: Json = {}) {
  const res = await api(ctx)('POST', '/monitoring/transactions', caller, txBody(body));
  if (res.statusCode !== 201) throw new Error(`submit ${res.statusCode}: ${res.body}`);
  return res.json() as MonitoredTx;
}

export interface MonitoredTx {
  monitored_transaction_id: string;
  client_reference: string;
  decision: string;
  decision_reason: string | null;
  score: number;
  rule_hits: { rule_id: string; action: string; score: number; type: string; name: string }[];
  sanctions_hit: boolean;
  sanctions_matches: { list: string; matched_name: string; match_score: number }[];
  remediation: Json | null;
  remediation_url: string | null;
  remediation_status: string | null;
  reviews: Json[];
  [k: string]: unknown;
}

export async function testTx(ctx: TestContext, caller: TestCaller, transaction: Json, policy?: Json) {
  const { client_reference: _r, ...t } = txBody(transaction);
  const res = await api(ctx)('POST', '/monitoring/policy/test', caller, {
    transaction: t,
    ...(policy ? { policy } : {}),
  });
  if (res.statusCode !== 200) throw new Error(`test ${res.statusCode}: ${res.body}`);
  return res.json() as {
    decision: string;
    decision_reason: string;
    score: number;
    rule_hits: Json[];
    sanctions_hit: boolean;
  };
}

export async function createUser(
  ctx: TestContext,
  clientId: string,
  kycStatus: KycStatus = 'none',
  createdAt?: Date,
) {
  const [u] = await ctx.db
    .insert(kycUsers)
    .values({
      clientId,
      email: `u-${++seq}-${Date.now()}@example.com`,
      firstName: 'Una',
      lastName: 'User',
      kycStatus,
      createdAt: createdAt ?? ctx.clock.now(),
    })
    .returning({ id: kycUsers.id });
  return u!.id;
}

export async function createBusiness(
  ctx: TestContext,
  clientId: string,
  kybStatus: KybStatus = 'approved',
  country = 'GB',
) {
  const [b] = await ctx.db
    .insert(businessCustomers)
    .values({
      clientId,
      companyName: `Biz ${++seq}`,
      country,
      email: `b-${seq}-${Date.now()}@example.com`,
      kybStatus,
      createdAt: ctx.clock.now(),
    })
    .returning({ id: businessCustomers.id });
  return b!.id;
}

/** Stores `matches` as a monitored transaction's sanctions matches, as screening would have (and the hit flag when given). */
export async function storeSanctionsMatches(ctx: TestContext, id: string, matches: Json[], hit?: boolean) {
  await ctx.deps.db
    .update(monitoredTransactions)
    .set({ ...(hit === undefined ? {} : { sanctionsHit: hit }), sanctionsMatches: matches })
    .where(eq(monitoredTransactions.id, id));
}

/** A client's sanctions allowlist rows (their key: name, identifier, list, entry, list version), of one transaction when given. */
export function allowlistRows(ctx: TestContext, clientId: string, transactionId?: string) {
  const a = monitoringSanctionsAllowlist;
  return ctx.deps.db
    .select({
      nameKey: a.nameKey,
      identifier: a.identifier,
      list: a.list,
      entryId: a.entryId,
      listVersion: a.listVersion,
    })
    .from(a)
    .where(
      and(eq(a.clientId, clientId), transactionId ? eq(a.monitoredTransactionId, transactionId) : undefined),
    );
}
