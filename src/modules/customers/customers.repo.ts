import { and, count, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { businessCustomers, type KybStatus, type KycStatus, kycUsers } from '../../db/schema/index';
import type { PageParams } from '../../shared/pagination';

export type UserRow = typeof kycUsers.$inferSelect;
export type BusinessRow = typeof businessCustomers.$inferSelect;

/** A LIKE pattern matching `text` literally anywhere. */
import { containsPattern } from '../../shared/pagination';

export { containsPattern };

/** True when a query failed on a unique index (either driver; drizzle wraps the cause). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
    if (e.code === '23505') return true;
    e = e.cause as typeof e;
  }
  return false;
}

export async function insertUser(db: DbOrTx, values: typeof kycUsers.$inferInsert): Promise<UserRow> {
  const [row] = await db.insert(kycUsers).values(values).returning();
  return row!;
}

export async function findClientUser(
  db: DbOrTx,
  clientId: string,
  userId: string,
): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(kycUsers)
    .where(and(eq(kycUsers.id, userId), eq(kycUsers.clientId, clientId)));
  return row;
}

export async function listClientUsers(
  db: DbOrTx,
  clientId: string,
  page: PageParams,
  filter: { kycStatus?: KycStatus; q?: string },
): Promise<{ rows: UserRow[]; total: number }> {
  const where: (SQL | undefined)[] = [eq(kycUsers.clientId, clientId)];
  if (filter.kycStatus) where.push(eq(kycUsers.kycStatus, filter.kycStatus));
  if (filter.q) {
    const p = containsPattern(filter.q);
    where.push(
      or(
        ilike(kycUsers.email, p),
        ilike(kycUsers.firstName, p),
        ilike(kycUsers.lastName, p),
        ilike(kycUsers.externalRef, p),
      ),
    );
  }
  const cond = and(...where);
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(kycUsers)
      .where(cond)
      .orderBy(desc(kycUsers.createdAt), desc(kycUsers.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(kycUsers).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

export async function insertBusiness(
  db: DbOrTx,
  values: typeof businessCustomers.$inferInsert,
): Promise<BusinessRow> {
  const [row] = await db.insert(businessCustomers).values(values).returning();
  return row!;
}

export async function findClientBusiness(
  db: DbOrTx,
  clientId: string,
  id: string,
): Promise<BusinessRow | undefined> {
  const [row] = await db
    .select()
    .from(businessCustomers)
    .where(and(eq(businessCustomers.id, id), eq(businessCustomers.clientId, clientId)));
  return row;
}

/** A client's business customer by email (case-insensitive, like the unique index). */
export async function findClientBusinessByEmail(
  db: DbOrTx,
  clientId: string,
  email: string,
): Promise<BusinessRow | undefined> {
  const [row] = await db
    .select()
    .from(businessCustomers)
    .where(
      and(
        eq(businessCustomers.clientId, clientId),
        sql`lower(${businessCustomers.email}) = lower(${email.trim()})`,
      ),
    );
  return row;
}

export async function listClientBusinesses(
  db: DbOrTx,
  clientId: string,
  page: PageParams,
  filter: { kybStatus?: KybStatus; q?: string },
): Promise<{ rows: BusinessRow[]; total: number }> {
  const where: (SQL | undefined)[] = [eq(businessCustomers.clientId, clientId)];
  if (filter.kybStatus) where.push(eq(businessCustomers.kybStatus, filter.kybStatus));
  if (filter.q) {
    const p = containsPattern(filter.q);
    where.push(
      or(
        ilike(businessCustomers.companyName, p),
        ilike(businessCustomers.email, p),
        ilike(businessCustomers.registrationNumber, p),
      ),
    );
  }
  const cond = and(...where);
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(businessCustomers)
      .where(cond)
      .orderBy(desc(businessCustomers.createdAt), desc(businessCustomers.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(businessCustomers).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

/** The client's user with this email (emails are unique per client, case-insensitively). */
export async function findClientUserByEmail(
  db: DbOrTx,
  clientId: string,
  email: string,
): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(kycUsers)
    .where(and(eq(kycUsers.clientId, clientId), sql`lower(${kycUsers.email}) = lower(${email.trim()})`));
  return row;
}
