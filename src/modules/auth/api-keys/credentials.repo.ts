/** Queries of API credentials and the per-key lockout counters. */
import { and, desc, eq, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { apiCredentials, apiKeyLockouts, clients } from '../../../db/schema/index';

export type ApiCredentialRow = typeof apiCredentials.$inferSelect;
export type NewApiCredential = typeof apiCredentials.$inferInsert;
export type ApiKeyLockoutRow = typeof apiKeyLockouts.$inferSelect;

export async function insertCredential(db: DbOrTx, values: NewApiCredential): Promise<ApiCredentialRow> {
  const [row] = await db.insert(apiCredentials).values(values).returning();
  return row!;
}

export async function listCredentials(db: DbOrTx, clientId: string): Promise<ApiCredentialRow[]> {
  return db
    .select()
    .from(apiCredentials)
    .where(eq(apiCredentials.clientId, clientId))
    .orderBy(desc(apiCredentials.createdAt), desc(apiCredentials.id));
}

/** The credential of this client, locked for update when `forUpdate` (inside a transaction). */
export async function findCredential(
  db: DbOrTx,
  clientId: string,
  credentialId: string,
  forUpdate = false,
): Promise<ApiCredentialRow | undefined> {
  const q = db
    .select()
    .from(apiCredentials)
    .where(and(eq(apiCredentials.id, credentialId), eq(apiCredentials.clientId, clientId)));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export interface CredentialWithClient {
  credential: ApiCredentialRow;
  clientActive: boolean;
  productionAccessEnabled: boolean;
}

export async function findCredentialByKey(
  db: DbOrTx,
  apiKey: string,
): Promise<CredentialWithClient | undefined> {
  const [row] = await db
    .select({
      credential: apiCredentials,
      clientActive: clients.isActive,
      productionAccessEnabled: clients.productionAccessEnabled,
    })
    .from(apiCredentials)
    .innerJoin(clients, eq(clients.id, apiCredentials.clientId))
    .where(eq(apiCredentials.apiKey, apiKey));
  return row;
}

export async function updateCredential(
  db: DbOrTx,
  id: string,
  values: Partial<
    Pick<
      ApiCredentialRow,
      'secretHash' | 'tokensValidFrom' | 'secretRotatedAt' | 'disabledAt' | 'lastUsedAt' | 'updatedAt'
    >
  > & { bumpGeneration?: boolean },
): Promise<ApiCredentialRow> {
  const { bumpGeneration, ...set } = values;
  const [row] = await db
    .update(apiCredentials)
    .set(bumpGeneration ? { ...set, tokenGeneration: sql`${apiCredentials.tokenGeneration} + 1` } : set)
    .where(eq(apiCredentials.id, id))
    .returning();
  return row!;
}

/** Serializes token exchanges of one API key (the lockout check and the counter update). */
export async function lockApiKey(tx: DbOrTx, keyHash: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(724012, hashtext(${keyHash}))`);
}

export async function findLockout(db: DbOrTx, keyHash: string): Promise<ApiKeyLockoutRow | undefined> {
  const [row] = await db.select().from(apiKeyLockouts).where(eq(apiKeyLockouts.keyHash, keyHash));
  return row;
}

export async function saveLockout(db: DbOrTx, row: ApiKeyLockoutRow): Promise<void> {
  await db
    .insert(apiKeyLockouts)
    .values(row)
    .onConflictDoUpdate({
      target: apiKeyLockouts.keyHash,
      set: { failures: row.failures, lastFailureAt: row.lastFailureAt, lockedUntil: row.lockedUntil },
    });
}

export async function clearLockout(db: DbOrTx, keyHash: string): Promise<void> {
  await db.delete(apiKeyLockouts).where(eq(apiKeyLockouts.keyHash, keyHash));
}

/** Deletes counters that no longer matter: no lock in force and the last failure is older than `before`. */
export async function deleteStaleLockouts(db: DbOrTx, now: Date, before: Date): Promise<number> {
  const gone = await db
    .delete(apiKeyLockouts)
    .where(
      and(
        lt(apiKeyLockouts.lastFailureAt, before),
        or(sql`${apiKeyLockouts.lockedUntil} is null`, lt(apiKeyLockouts.lockedUntil, now)),
      ),
    )
    .returning({ keyHash: apiKeyLockouts.keyHash });
  return gone.length;
}
