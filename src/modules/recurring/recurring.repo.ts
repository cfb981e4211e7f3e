/** Queries of recurring payments, runs and attempts. Every client-facing query filters by client_id. */
import { and, asc, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import {
  type RecurringRunStatus,
  type RecurringStatus,
  recurringAttempts,
  recurringPayments,
  recurringRuns,
} from '../../db/schema/index';
import type { PageParams } from '../../shared/pagination';

export type DefinitionRow = typeof recurringPayments.$inferSelect;
export type RunRow = typeof recurringRuns.$inferSelect;
export type AttemptRow = typeof recurringAttempts.$inferSelect;

export async function findDefinition(
  db: DbOrTx,
  clientId: string,
  id: string,
): Promise<DefinitionRow | null> {
  const [row] = await db
    .select()
    .from(recurringPayments)
    .where(and(eq(recurringPayments.id, id), eq(recurringPayments.clientId, clientId)));
  return row ?? null;
}

export async function findDefinitionById(
  db: DbOrTx,
  id: string,
  lock = false,
): Promise<DefinitionRow | null> {
  const q = db.select().from(recurringPayments).where(eq(recurringPayments.id, id));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function findDefinitionBy(
  db: DbOrTx,
  where: { token?: string; mandateRef?: string },
): Promise<DefinitionRow | null> {
  const cond = where.token
    ? eq(recurringPayments.authorizationToken, where.token)
    : eq(recurringPayments.mandateRef, where.mandateRef ?? '');
  const [row] = await db.select().from(recurringPayments).where(cond);
  return row ?? null;
}

export async function findRun(
  db: DbOrTx,
  definitionId: string,
  runId: string,
  lock = false,
): Promise<RunRow | null> {
  const q = db
    .select()
    .from(recurringRuns)
    .where(and(eq(recurringRuns.id, runId), eq(recurringRuns.definitionId, definitionId)));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function findRunById(db: DbOrTx, runId: string, lock = false): Promise<RunRow | null> {
  const q = db.select().from(recurringRuns).where(eq(recurringRuns.id, runId));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function attemptsOf(db: DbOrTx, runIds: string[]): Promise<AttemptRow[]> {
  if (runIds.length === 0) return [];
  return db
    .select()
    .from(recurringAttempts)
    .where(inArray(recurringAttempts.runId, runIds))
    .orderBy(asc(recurringAttempts.runId), asc(recurringAttempts.attemptNumber));
}

export async function latestAttempt(db: DbOrTx, runId: string): Promise<AttemptRow | null> {
  const [row] = await db
    .select()
    .from(recurringAttempts)
    .where(eq(recurringAttempts.runId, runId))
    .orderBy(desc(recurringAttempts.attemptNumber))
    .limit(1);
  return row ?? null;
}

export interface DefinitionFilters {
  status?: RecurringStatus;
  projectId?: string;
  userId?: string;
  businessCustomerId?: string;
}

export async function listDefinitions(
  db: DbOrTx,
  clientId: string,
  f: DefinitionFilters,
  page: PageParams,
): Promise<{ rows: DefinitionRow[]; total: number }> {
  const where = and(
    ...([
      eq(recurringPayments.clientId, clientId),
      f.status ? eq(recurringPayments.status, f.status) : undefined,
      f.projectId ? eq(recurringPayments.projectId, f.projectId) : undefined,
      f.userId ? eq(recurringPayments.userId, f.userId) : undefined,
      f.businessCustomerId ? eq(recurringPayments.businessCustomerId, f.businessCustomerId) : undefined,
    ] as (SQL | undefined)[]),
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(recurringPayments)
      .where(where)
      .orderBy(desc(recurringPayments.createdAt), desc(recurringPayments.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(recurringPayments).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function listRuns(
  db: DbOrTx,
  definitionId: string,
  status: RecurringRunStatus | undefined,
  page: PageParams,
): Promise<{ rows: RunRow[]; total: number }> {
  const where = and(
    eq(recurringRuns.definitionId, definitionId),
    status ? eq(recurringRuns.status, status) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(recurringRuns)
      .where(where)
      .orderBy(desc(recurringRuns.createdAt), desc(recurringRuns.sequence))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(recurringRuns).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}
