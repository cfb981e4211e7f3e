/** Queries of team accounts (a client's dashboard users). */
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { accounts, clients, securityChallenges } from '../../../db/schema/index';

export type AccountRow = typeof accounts.$inferSelect;
export type NewAccount = typeof accounts.$inferInsert;

export async function listAccounts(db: DbOrTx, clientId: string): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(eq(accounts.clientId, clientId))
    .orderBy(asc(accounts.createdAt), asc(accounts.id));
}

export async function findAccount(
  db: DbOrTx,
  clientId: string,
  accountId: string,
): Promise<AccountRow | undefined> {
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.id, accountId), eq(accounts.clientId, clientId)));
  return row;
}

export async function emailTaken(db: DbOrTx, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(sql`lower(${accounts.email}) = lower(${email})`);
  return row !== undefined;
}

/**
 * Serializes team changes of one client (row lock on the client), so two concurrent demotions
 * cannot both see "another owner remains".
 */
export async function lockClientTeam(tx: DbOrTx, clientId: string): Promise<void> {
  await tx.select({ id: clients.id }).from(clients).where(eq(clients.id, clientId)).for('update');
}

export async function countOtherActiveOwners(
  tx: DbOrTx,
  clientId: string,
  exceptId: string,
): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(accounts)
    .where(
      and(
        eq(accounts.clientId, clientId),
        eq(accounts.role, 'owner'),
        eq(accounts.isActive, true),
        ne(accounts.id, exceptId),
      ),
    );
  return Number(row?.n ?? 0);
}

export async function insertAccount(db: DbOrTx, values: NewAccount): Promise<AccountRow> {
  const [row] = await db.insert(accounts).values(values).returning();
  return row!;
}

export async function updateAccount(
  db: DbOrTx,
  id: string,
  values: Partial<Pick<AccountRow, 'role' | 'fullName' | 'isActive' | 'updatedAt'>>,
): Promise<AccountRow> {
  const [row] = await db.update(accounts).set(values).where(eq(accounts.id, id)).returning();
  return row!;
}

/** Deletes the account and its own security challenges. */
export async function deleteAccount(db: DbOrTx, id: string): Promise<void> {
  await db.delete(securityChallenges).where(eq(securityChallenges.accountId, id));
  await db.delete(accounts).where(eq(accounts.id, id));
}
