import { and, count, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { projects } from '../../db/schema/index';
import { type PageParams, prefixPattern } from '../../shared/pagination';

export type ProjectRow = typeof projects.$inferSelect;
export type ProjectChanges = Partial<Omit<typeof projects.$inferInsert, 'id' | 'clientId' | 'createdAt'>>;

export async function insertProject(db: DbOrTx, values: typeof projects.$inferInsert): Promise<ProjectRow> {
  const [row] = await db.insert(projects).values(values).returning();
  return row!;
}

export async function findClientProject(
  db: DbOrTx,
  clientId: string,
  projectId: string,
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.clientId, clientId)));
  return row;
}

export async function findProjectForUpdate(db: DbOrTx, projectId: string): Promise<ProjectRow | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, projectId)).for('update');
  return row;
}

export async function updateProject(
  db: DbOrTx,
  projectId: string,
  changes: ProjectChanges,
): Promise<ProjectRow | undefined> {
  const [row] = await db.update(projects).set(changes).where(eq(projects.id, projectId)).returning();
  return row;
}

export async function listClientProjects(
  db: DbOrTx,
  clientId: string,
  page: PageParams,
  includeArchived: boolean,
  q?: string,
): Promise<{ rows: ProjectRow[]; total: number }> {
  const where: SQL[] = [eq(projects.clientId, clientId)];
  if (!includeArchived) where.push(isNull(projects.archivedAt));
  // projects_client_name_search_idx
  if (q) where.push(sql`lower(${projects.projectName}) like ${prefixPattern(q)}`);
  const cond = and(...where);
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(projects)
      .where(cond)
      .orderBy(desc(projects.createdAt), desc(projects.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(projects).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}
