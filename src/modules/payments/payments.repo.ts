/** Queries of the payments feature. Every client-facing query filters by client_id. */
import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Database, DbOrTx } from '../../db/client';
import { columnList, mapRow } from '../../db/hot';
import { type TransactionStatus, transactionStatusEvents, transactions } from '../../db/schema/index';
import { type AuthRead, type AuthRow, uuidPathKey } from '../../plugins/auth';
import { type PageParams, prefixPattern } from '../../shared/pagination';

/** Named, not `*`: see columnList. */
const TX_COLUMNS = columnList(transactions);

export type TransactionRow = typeof transactions.$inferSelect;
export type StatusEventRow = typeof transactionStatusEvents.$inferSelect;

export async function findTransactionForClient(
  db: DbOrTx,
  clientId: string,
  id: string,
): Promise<TransactionRow | null> {
  const [row] = await db
    .select()
    .from(transactions)
    .where(and(eq(transactions.id, id), eq(transactions.clientId, clientId)));
  return row ?? null;
}

/** The same read as findTransactionForClient, outside transactions, as a named prepared statement. */
export async function readTransactionForClient(
  database: Database,
  clientId: string,
  id: string,
): Promise<TransactionRow | null> {
  const [raw] = await database.query(
    'transaction_for_client',
    `select ${TX_COLUMNS} from transactions where id = $1::uuid and client_id = $2::uuid`,
    [id, clientId],
  );
  return raw ? mapRow(transactions, raw) : null;
}

/** GET /transactions/{id}'s read, done in the token check's statement ($1 client, $8 id). */
export const TRANSACTION_AUTH_READ: AuthRead = {
  name: 'transaction_for_client',
  sql: `select ${TX_COLUMNS} from transactions where id = $8::uuid and client_id = $1::uuid`,
  key: uuidPathKey('transaction_id'),
};

/** The transaction of TRANSACTION_AUTH_READ's row: undefined when it was not read with the token. */
export function transactionOfAuthRow(pre: AuthRow | null): TransactionRow | null | undefined {
  if (!pre) return undefined;
  return pre.found ? mapRow(transactions, pre.row) : null;
}

export async function findTransactionById(db: DbOrTx, id: string): Promise<TransactionRow | null> {
  const [row] = await db.select().from(transactions).where(eq(transactions.id, id));
  return row ?? null;
}

export async function findTransactionByToken(db: DbOrTx, token: string): Promise<TransactionRow | null> {
  const [row] = await db.select().from(transactions).where(eq(transactions.checkoutToken, token));
  return row ?? null;
}

export async function findTransactionByRef(db: DbOrTx, refId: string): Promise<TransactionRow | null> {
  const [row] = await db.select().from(transactions).where(eq(transactions.refId, refId));
  return row ?? null;
}

export interface TransactionFilters {
  status?: TransactionStatus;
  projectId?: string;
  userId?: string;
  originType?: string;
  reconciliationState?: string;
  contractRequestId?: string;
  /** Trimmed search text: the exact id, or a prefix of ref_id, description or the payer's email. */
  q?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `q`: the ids matching any arm, each arm one index (transactions_client_ref_search_idx,
 * …_description_search_idx, the payer's email through the kyc_users / business_customers email
 * indexes, then the transactions' (client, user) and (client, business customer) indexes). As one
 * OR filter the planner would walk all of the client's rows in created order instead.
 */
export function transactionSearch(clientId: string, q: string): SQL {
  const p = prefixPattern(q);
  const mine = sql`select id from transactions where client_id = ${clientId}`;
  const arms: SQL[] = [
    sql`${mine} and lower(ref_id) like ${p}`,
    sql`${mine} and lower(description) like ${p}`,
    sql`${mine} and user_id in (select id from kyc_users where client_id = ${clientId} and lower(email) like ${p})`,
    sql`${mine} and business_customer_id in (select id from business_customers where client_id = ${clientId} and lower(email) like ${p})`,
  ];
  if (UUID.test(q)) arms.unshift(sql`${mine} and id = ${q.toLowerCase()}`);
  return sql`${transactions.id} in (${sql.join(arms, sql` union `)})`;
}

export async function listTransactions(
  db: DbOrTx,
  clientId: string,
  f: TransactionFilters,
  page: PageParams,
): Promise<{ rows: TransactionRow[]; total: number }> {
  const conds: SQL[] = [eq(transactions.clientId, clientId)];
  if (f.status) conds.push(eq(transactions.status, f.status));
  if (f.projectId) conds.push(eq(transactions.projectId, f.projectId));
  if (f.userId) conds.push(eq(transactions.userId, f.userId));
  if (f.originType) conds.push(eq(transactions.originType, f.originType));
  if (f.reconciliationState) conds.push(eq(transactions.reconciliationState, f.reconciliationState));
  if (f.contractRequestId) conds.push(eq(transactions.contractRequestId, f.contractRequestId));
  if (f.q) conds.push(transactionSearch(clientId, f.q));
  const where = and(...conds);
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(transactions)
      .where(where)
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(transactions).where(where),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

// The page and its exact total in one round trip: the total is the sum of the trigger-maintained
// counters (a handful of rows), the page an index scan in the list's order; the lateral join
// keeps the total when the page is empty. One text per filter shape, so each is planned for it;
// both take the same four parameters (the unfiltered one only tests that $2 is null).
const PAGE_TAIL = `order by created_at desc, id desc limit $3 offset $4) t on true`;
const PAGE_ALL = `select tot.total_count__, ${columnList(transactions, 't')}
  from (select coalesce(sum(n), 0)::bigint as total_count__ from transaction_count_deltas
         where client_id = $1::uuid and $2::text is null) tot
  left join lateral (select * from transactions where client_id = $1::uuid ${PAGE_TAIL}`;
const PAGE_STATUS = `select tot.total_count__, ${columnList(transactions, 't')}
  from (select coalesce(sum(n), 0)::bigint as total_count__ from transaction_count_deltas
         where client_id = $1::uuid and status = $2::text) tot
  left join lateral (select * from transactions where client_id = $1::uuid and status = $2::text ${PAGE_TAIL}`;

/**
 * A client's transactions, newest first, unfiltered or filtered by status only (the list's hot
 * path: one named prepared statement, no query building); other filters go through
 * listTransactions. The total is exact at the statement's snapshot.
 */
export async function listTransactionsByStatus(
  database: Database,
  clientId: string,
  status: string | undefined,
  page: PageParams,
): Promise<{ rows: TransactionRow[]; total: number }> {
  const raw = await database.query<Record<string, unknown>>(
    status ? 'transactions_page_status' : 'transactions_page',
    status ? PAGE_STATUS : PAGE_ALL,
    [clientId, status ?? null, page.pageSize, page.offset],
  );
  const rows: TransactionRow[] = [];
  for (const r of raw) if (r.id != null) rows.push(mapRow(transactions, r));
  return { rows, total: Number(raw[0]?.total_count__ ?? 0) };
}

export async function listStatusEvents(
  db: DbOrTx,
  clientId: string,
  transactionId: string,
): Promise<StatusEventRow[]> {
  return db
    .select()
    .from(transactionStatusEvents)
    .where(
      and(
        eq(transactionStatusEvents.transactionId, transactionId),
        eq(transactionStatusEvents.clientId, clientId),
      ),
    )
    .orderBy(asc(transactionStatusEvents.createdAt), asc(transactionStatusEvents.id));
}

export async function insertStatusEvent(
  db: DbOrTx,
  values: typeof transactionStatusEvents.$inferInsert,
): Promise<StatusEventRow> {
  const [row] = await db.insert(transactionStatusEvents).values(values).returning();
  return row!;
}

/** The spec's transaction fields shared by the API view and the payment.status_changed event. */
export function transactionCoreFields(t: TransactionRow) {
  return {
    transaction_id: t.id,
    ref_id: t.refId,
    transfer_id: t.transferId,
    amount: t.amount,
    currency: t.currency,
    user_id: t.userId,
    business_customer_id: t.businessCustomerId,
    project_id: t.projectId,
    contract_request_id: t.contractRequestId,
  };
}
