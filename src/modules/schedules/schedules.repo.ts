/** Queries of payment schedules. Every client-facing query filters by client_id. */
import { and, asc, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { paymentScheduleInstalments, paymentSchedules, type ScheduleStatus } from '../../db/schema/index';
import type { PageParams } from '../../shared/pagination';

export type ScheduleRow = typeof paymentSchedules.$inferSelect;
export type InstalmentRow = typeof paymentScheduleInstalments.$inferSelect;

export async function findSchedule(db: DbOrTx, clientId: string, id: string): Promise<ScheduleRow | null> {
  const [row] = await db
    .select()
    .from(paymentSchedules)
    .where(and(eq(paymentSchedules.id, id), eq(paymentSchedules.clientId, clientId)));
  return row ?? null;
}

export async function findScheduleById(db: DbOrTx, id: string, lock = false): Promise<ScheduleRow | null> {
  const q = db.select().from(paymentSchedules).where(eq(paymentSchedules.id, id));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function findInstalmentById(
  db: DbOrTx,
  id: string,
  lock = false,
): Promise<InstalmentRow | null> {
  const q = db.select().from(paymentScheduleInstalments).where(eq(paymentScheduleInstalments.id, id));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

/** Instalments of the schedules, by schedule and sequence (one query). */
export async function instalmentsOf(db: DbOrTx, scheduleIds: string[]): Promise<InstalmentRow[]> {
  if (scheduleIds.length === 0) return [];
  return db
    .select()
    .from(paymentScheduleInstalments)
    .where(inArray(paymentScheduleInstalments.scheduleId, scheduleIds))
    .orderBy(asc(paymentScheduleInstalments.scheduleId), asc(paymentScheduleInstalments.sequence));
}

export interface ScheduleFilters {
  status?: ScheduleStatus;
  projectId?: string;
  userId?: string;
  businessCustomerId?: string;
}

export async function listSchedules(
  db: DbOrTx,
  clientId: string,
  f: ScheduleFilters,
  page: PageParams,
): Promise<{ rows: ScheduleRow[]; total: number }> {
  const conds: (SQL | undefined)[] = [
    eq(paymentSchedules.clientId, clientId),
    f.status ? eq(paymentSchedules.status, f.status) : undefined,
    f.projectId ? eq(paymentSchedules.projectId, f.projectId) : undefined,
    f.userId ? eq(paymentSchedules.userId, f.userId) : undefined,
    f.businessCustomerId ? eq(paymentSchedules.businessCustomerId, f.businessCustomerId) : undefined,
  ];
  const where = and(...conds);
  const [rows, [t]] = await Promise.all([
    db
      .select()
      .from(paymentSchedules)
      .where(where)
      .orderBy(desc(paymentSchedules.createdAt), desc(paymentSchedules.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(paymentSchedules).where(where),
  ]);
  return { rows, total: Number(t?.n ?? 0) };
}
