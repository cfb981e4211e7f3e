/** The queries of transaction monitoring (Drizzle). Every query filters by client_id. */
import { and, asc, count, desc, eq, gte, inArray, isNull, lt, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import {
  type Decision,
  type MonitoredTransactionInsert,
  type MonitoredTransactionRow,
  monitoringPolicies,
  monitoringReviews,
  monitoringSanctionsAllowlist,
  monitoredTransactions as mt,
  type RemediationStatus,
} from '../../db/schema/index';
import { containsPattern, type PageParams } from '../../shared/pagination';
import type { HistoryRequest } from './engine.policy';

export type { MonitoredTransactionRow } from '../../db/schema/index';
export type ReviewRow = typeof monitoringReviews.$inferSelect;
export type PolicyRow = typeof monitoringPolicies.$inferSelect;

export async function latestPolicy(db: DbOrTx, clientId: string): Promise<PolicyRow | null> {
  const [row] = await db
    .select()
    .from(monitoringPolicies)
    .where(eq(monitoringPolicies.clientId, clientId))
    .orderBy(desc(monitoringPolicies.version))
    .limit(1);
  return row ?? null;
}

export async function insertPolicyVersion(db: DbOrTx, row: typeof monitoringPolicies.$inferInsert) {
  const [r] = await db.insert(monitoringPolicies).values(row).returning();
  return r!;
}

/**
 * The history of one customer (velocity, structuring): every aggregate the policy needs in ONE query,
 * an index range scan of (client_id, subject_key, occurred_at) over the widest window, `excludeId`
 * left out. Never a scan of the client's whole table.
 */
export function historyOf(db: DbOrTx, clientId: string, subjectKey: string, excludeId: string | null) {
  return {
    async aggregate(requests: HistoryRequest[], until: Date): Promise<string[]> {
      if (requests.length === 0) return [];
      const earliest = new Date(Math.min(...requests.map((r) => r.since.getTime())));
      const cols = requests.map((r, i) => {
        const after = sql`${mt.occurredAt} > ${r.since.toISOString()}::timestamptz`;
        const expr =
          r.kind === 'count'
            ? sql`count(*) filter (where ${after})::text`
            : r.kind === 'sum'
              ? sql`coalesce(sum(${mt.amount}) filter (where ${after} and ${mt.currency} = ${r.currency}), 0)::text`
              : sql`count(*) filter (where ${after} and ${mt.currency} = ${r.currency}
                    and ${mt.amount} >= ${r.low}::numeric and ${mt.amount} < ${r.high}::numeric)::text`;
        return sql`${expr} as ${sql.identifier(`r${i}`)}`;
      });
      const res = await db.execute(sql`
        select ${sql.join(cols, sql`, `)}
          from ${mt}
         where ${mt.clientId} = ${clientId}::uuid
           and ${mt.subjectKey} = ${subjectKey}
           and ${mt.occurredAt} > ${earliest.toISOString()}::timestamptz
           and ${mt.occurredAt} <= ${until.toISOString()}::timestamptz
           ${excludeId ? sql`and ${mt.id} <> ${excludeId}::uuid` : sql``}`);
      const row = rowsOf<Record<string, string>>(res)[0] ?? {};
      return requests.map((_, i) => row[`r${i}`] ?? '0');
    },
    async firstSeen(): Promise<Date | null> {
      const [r] = await db
        .select({ at: mt.occurredAt })
        .from(mt)
        .where(and(eq(mt.clientId, clientId), eq(mt.subjectKey, subjectKey)))
        .orderBy(asc(mt.occurredAt))
        .limit(1);
      return r?.at ?? null;
    },
  };
}

export async function insertMonitored(db: DbOrTx, row: MonitoredTransactionInsert) {
  const [r] = await db
    .insert(mt)
    .values(row)
    .onConflictDoNothing({ target: [mt.clientId, mt.clientReference] })
    .returning();
  return r ?? null;
}

export async function findMonitored(
  db: DbOrTx,
  clientId: string,
  id: string,
  lock = false,
): Promise<MonitoredTransactionRow | null> {
  const q = db
    .select()
    .from(mt)
    .where(and(eq(mt.clientId, clientId), eq(mt.id, id)));
  const [r] = lock ? await q.for('update') : await q;
  return r ?? null;
}

export async function findByReference(db: DbOrTx, clientId: string, ref: string) {
  const [r] = await db
    .select()
    .from(mt)
    .where(and(eq(mt.clientId, clientId), eq(mt.clientReference, ref)));
  return r ?? null;
}

export async function findByToken(db: DbOrTx, token: string, lock = false) {
  const q = db.select().from(mt).where(eq(mt.remediationToken, token));
  const [r] = lock ? await q.for('update') : await q;
  return r ?? null;
}

/** Records the verification link of a still-current identity_reverification remediation. */
export async function setRemediationVerification(
  db: DbOrTx,
  id: string,
  token: string,
  verificationId: string,
): Promise<MonitoredTransactionRow | null> {
  const [r] = await db
    .update(mt)
    .set({ remediationVerificationId: verificationId })
    .where(and(eq(mt.id, id), eq(mt.remediationToken, token), isNull(mt.remediationVerificationId)))
    .returning();
  return r ?? null;
}

/** Pending remediations waiting on a verification or an ownership request, locked. */
export async function lockAwaitingRemediations(
  db: DbOrTx,
  clientId: string,
  link: { verificationId: string } | { ownershipRequestId: string },
): Promise<MonitoredTransactionRow[]> {
  return db
    .select()
    .from(mt)
    .where(
      and(
        eq(mt.clientId, clientId),
        'verificationId' in link
          ? eq(mt.remediationVerificationId, link.verificationId)
          : eq(mt.remediationOwnershipRequestId, link.ownershipRequestId),
        eq(mt.decision, 'AWAITING_USER'),
        eq(mt.remediationStatus, 'pending'),
      ),
    )
    .for('update');
}

export interface ListFilters {
  clientId: string;
  q?: string;
  decision?: Decision;
  direction?: string;
  sanctionsHit?: boolean;
  userId?: string;
  businessCustomerId?: string;
  remediationStatus?: RemediationStatus;
  from?: Date;
  to?: Date;
}

export async function listMonitored(db: DbOrTx, f: ListFilters, page: PageParams) {
  const where = and(
    eq(mt.clientId, f.clientId),
    f.q ? sql`${mt.searchText} ilike ${containsPattern(f.q.toLowerCase())}` : undefined,
    f.decision ? eq(mt.decision, f.decision) : undefined,
    f.direction ? eq(mt.direction, f.direction) : undefined,
    f.sanctionsHit === undefined ? undefined : eq(mt.sanctionsHit, f.sanctionsHit),
    f.userId ? eq(mt.userId, f.userId) : undefined,
    f.businessCustomerId ? eq(mt.businessCustomerId, f.businessCustomerId) : undefined,
    f.remediationStatus ? eq(mt.remediationStatus, f.remediationStatus) : undefined,
    f.from ? gte(mt.createdAt, f.from) : undefined,
    f.to ? lt(mt.createdAt, f.to) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(mt)
      .where(where)
      .orderBy(desc(mt.createdAt), desc(mt.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(mt).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function insertReview(db: DbOrTx, row: typeof monitoringReviews.$inferInsert) {
  await db.insert(monitoringReviews).values(row);
}

export async function reviewsOf(db: DbOrTx, ids: string[]): Promise<ReviewRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(monitoringReviews)
    .where(inArray(monitoringReviews.monitoredTransactionId, ids))
    .orderBy(asc(monitoringReviews.reviewedAt), asc(monitoringReviews.id));
}

export async function allowlistKeys(db: DbOrTx, clientId: string, nameKeys: string[]) {
  if (nameKeys.length === 0) return [];
  return db
    .select({
      nameKey: monitoringSanctionsAllowlist.nameKey,
      identifier: monitoringSanctionsAllowlist.identifier,
      list: monitoringSanctionsAllowlist.list,
      entryId: monitoringSanctionsAllowlist.entryId,
    })
    .from(monitoringSanctionsAllowlist)
    .where(
      and(
        eq(monitoringSanctionsAllowlist.clientId, clientId),
        inArray(monitoringSanctionsAllowlist.nameKey, nameKeys),
      ),
    );
}

export async function addToAllowlist(db: DbOrTx, rows: (typeof monitoringSanctionsAllowlist.$inferInsert)[]) {
  if (rows.length === 0) return;
  await db.insert(monitoringSanctionsAllowlist).values(rows).onConflictDoNothing();
}

/** The client's monitored transactions created since `since`, oldest first, at most `limit`. */
export async function recentForBacktest(db: DbOrTx, clientId: string, since: Date, limit: number) {
  return db
    .select()
    .from(mt)
    .where(and(eq(mt.clientId, clientId), gte(mt.createdAt, since)))
    .orderBy(desc(mt.createdAt), desc(mt.id))
    .limit(limit);
}
