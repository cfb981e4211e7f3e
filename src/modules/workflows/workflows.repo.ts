/** The queries of workflows: definitions, runs (claims with FOR UPDATE SKIP LOCKED + lease) and steps. */
import { and, count, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { type Db, type DbOrTx, rowsOf } from '../../db/client';
import { workflowDefinitions, workflowRunSteps, workflowRuns } from '../../db/schema/index';
import type { PageParams } from '../../shared/pagination';
import type { DefinitionStatus, RunStatus, StepStatus } from './workflows.machine';

export type DefinitionRow = typeof workflowDefinitions.$inferSelect;
export type RunRow = typeof workflowRuns.$inferSelect;
export type StepRow = typeof workflowRunSteps.$inferSelect;
export type DefinitionChanges = Partial<
  Omit<typeof workflowDefinitions.$inferInsert, 'id' | 'clientId' | 'createdAt'>
>;
export type RunChanges = Partial<Omit<typeof workflowRuns.$inferInsert, 'id' | 'clientId' | 'createdAt'>>;

export async function insertDefinition(db: DbOrTx, values: typeof workflowDefinitions.$inferInsert) {
  const [row] = await db.insert(workflowDefinitions).values(values).returning();
  return row!;
}

export async function findClientDefinition(db: DbOrTx, clientId: string, id: string, forUpdate = false) {
  const q = db
    .select()
    .from(workflowDefinitions)
    .where(and(eq(workflowDefinitions.id, id), eq(workflowDefinitions.clientId, clientId)));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function findDefinition(db: DbOrTx, id: string) {
  const [row] = await db.select().from(workflowDefinitions).where(eq(workflowDefinitions.id, id));
  return row;
}

export async function findDefinitionByTriggerToken(db: DbOrTx, token: string) {
  const [row] = await db
    .select()
    .from(workflowDefinitions)
    .where(eq(workflowDefinitions.triggerToken, token));
  return row;
}

export async function updateDefinition(db: DbOrTx, id: string, changes: DefinitionChanges) {
  const [row] = await db
    .update(workflowDefinitions)
    .set(changes)
    .where(eq(workflowDefinitions.id, id))
    .returning();
  return row!;
}

export async function deleteDefinition(db: DbOrTx, id: string) {
  await db.delete(workflowDefinitions).where(eq(workflowDefinitions.id, id));
}

export async function listClientDefinitions(
  db: DbOrTx,
  clientId: string,
  opts: { limit: number; offset: number; includeArchived: boolean; status?: DefinitionStatus },
): Promise<{ rows: DefinitionRow[]; total: number }> {
  const where: SQL[] = [eq(workflowDefinitions.clientId, clientId)];
  if (!opts.includeArchived) where.push(isNull(workflowDefinitions.archivedAt));
  if (opts.status) where.push(eq(workflowDefinitions.status, opts.status));
  const cond = and(...where);
  const [rows, totals] = await Promise.all([
    opts.limit > 0
      ? db
          .select()
          .from(workflowDefinitions)
          .where(cond)
          .orderBy(desc(workflowDefinitions.createdAt), desc(workflowDefinitions.id))
          .limit(opts.limit)
          .offset(opts.offset)
      : Promise.resolve([] as DefinitionRow[]),
    db.select({ n: count() }).from(workflowDefinitions).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

export async function definitionHasRuns(db: DbOrTx, definitionId: string): Promise<boolean> {
  const rows = await db
    .select({ id: workflowRuns.id })
    .from(workflowRuns)
    .where(eq(workflowRuns.definitionId, definitionId))
    .limit(1);
  return rows.length > 0;
}

/** Inserts a run unless the idempotency key is taken; returns null then. */
export async function insertRunIfNew(db: DbOrTx, values: typeof workflowRuns.$inferInsert) {
  const rows = await db.insert(workflowRuns).values(values).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function findRunByIdempotencyKey(
  db: DbOrTx,
  clientId: string,
  definitionId: string,
  key: string,
) {
  const [row] = await db
    .select()
    .from(workflowRuns)
    .where(
      and(
        eq(workflowRuns.clientId, clientId),
        eq(workflowRuns.definitionId, definitionId),
        eq(workflowRuns.idempotencyKey, key),
      ),
    );
  return row;
}

export async function findClientRun(db: DbOrTx, clientId: string, runId: string, forUpdate = false) {
  const q = db
    .select()
    .from(workflowRuns)
    .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.clientId, clientId)));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function listClientRuns(
  db: DbOrTx,
  clientId: string,
  page: PageParams,
  filter: { definitionId?: string; status?: RunStatus },
): Promise<{ rows: RunRow[]; total: number }> {
  const where: SQL[] = [eq(workflowRuns.clientId, clientId)];
  if (filter.definitionId) where.push(eq(workflowRuns.definitionId, filter.definitionId));
  if (filter.status) where.push(eq(workflowRuns.status, filter.status));
  const cond = and(...where);
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(workflowRuns)
      .where(cond)
      .orderBy(desc(workflowRuns.createdAt), desc(workflowRuns.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(workflowRuns).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

export async function stepsOfRun(db: DbOrTx, runId: string): Promise<StepRow[]> {
  return db
    .select()
    .from(workflowRunSteps)
    .where(eq(workflowRunSteps.runId, runId))
    .orderBy(workflowRunSteps.startedAt, workflowRunSteps.id);
}

export async function findStep(db: DbOrTx, runId: string, stepId: string) {
  const [row] = await db
    .select()
    .from(workflowRunSteps)
    .where(and(eq(workflowRunSteps.runId, runId), eq(workflowRunSteps.stepId, stepId)));
  return row;
}

export async function insertStep(db: DbOrTx, values: typeof workflowRunSteps.$inferInsert) {
  const [row] = await db.insert(workflowRunSteps).values(values).returning();
  return row!;
}

export async function updateStep(
  db: DbOrTx,
  id: string,
  changes: Partial<typeof workflowRunSteps.$inferInsert>,
) {
  await db.update(workflowRunSteps).set(changes).where(eq(workflowRunSteps.id, id));
}

/** Marks a run's unfinished steps (cancel). */
export async function closeOpenSteps(db: DbOrTx, runId: string, status: StepStatus, at: Date) {
  await db
    .update(workflowRunSteps)
    .set({ status, finishedAt: at })
    .where(and(eq(workflowRunSteps.runId, runId), inArray(workflowRunSteps.status, ['running', 'waiting'])));
}

/** Compare-and-set of a run held under a lease: zero rows means the lease was lost or the run was canceled. */
export async function updateLeasedRun(
  db: DbOrTx,
  runId: string,
  leaseToken: string,
  changes: RunChanges,
): Promise<RunRow | undefined> {
  const [row] = await db
    .update(workflowRuns)
    .set(changes)
    .where(
      and(
        eq(workflowRuns.id, runId),
        eq(workflowRuns.leaseToken, leaseToken),
        inArray(workflowRuns.status, ['pending', 'running', 'waiting']),
      ),
    )
    .returning();
  return row;
}

const tsParam = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Claims up to `limit` due runs in one statement: pending or waiting runs whose due time has come,
 * and running runs whose lease lapsed (a crashed engine). Rows other engines hold are skipped.
 */
export async function claimDueRuns(
  db: Db,
  opts: { now: Date; limit: number; leaseMs: number; token: string },
): Promise<string[]> {
  const now = tsParam(opts.now);
  const res = await db.execute(sql`
    update workflow_runs r
       set locked_until = ${tsParam(new Date(opts.now.getTime() + opts.leaseMs))},
           lease_token = ${opts.token}::uuid,
           claims = r.claims + 1
      from (select id from workflow_runs
             where status in ('pending', 'running', 'waiting') and due_at <= ${now}
               and (locked_until is null or locked_until <= ${now})
             order by due_at, id
             limit ${opts.limit}
             for update skip locked) c
     where r.id = c.id
    returning r.id`);
  return rowsOf<{ id: string }>(res).map((r) => r.id);
}
