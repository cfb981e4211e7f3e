/**
 * Ids a request body stores, checked the moment they are stored: each must name a resource of the
 * caller's client, or the request is refused with 404 `<Resource> not found` before anything is
 * written. Another client's id and an unknown one get the same answer, so ids cannot be probed.
 */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../db/client';
import { notFound } from './errors';
import { isUuid } from './ids';
import { M } from './messages';

/** The client-owned resources a body can point at, each with the table it lives in and its 404. */
const REFERENCE_KINDS = {
  user: { table: 'kyc_users', message: M.userNotFound },
  business_customer: { table: 'business_customers', message: M.businessCustomerNotFound },
  project: { table: 'projects', message: M.projectNotFound },
  opco: { table: 'opcos', message: M.opcoNotFound },
} as const;

export type ReferenceKind = keyof typeof REFERENCE_KINDS;

/** 404 with the kind's message unless `id` names a row of that kind owned by `clientId`. */
export async function assertOwnedReference(
  db: DbOrTx,
  clientId: string,
  kind: ReferenceKind,
  id: string,
): Promise<void> {
  const { table, message } = REFERENCE_KINDS[kind];
  if (!isUuid(id)) throw notFound(message);
  const res = await db.execute(
    sql`select 1 from ${sql.identifier(table)} where id = ${id}::uuid and client_id = ${clientId}::uuid`,
  );
  if (rowsOf(res).length === 0) throw notFound(message);
}

/** Checks every given id in order (absent ones are skipped); the first missing one answers. */
export async function assertOwnedReferences(
  db: DbOrTx,
  clientId: string,
  refs: readonly (readonly [ReferenceKind, string | null | undefined])[],
): Promise<void> {
  for (const [kind, id] of refs) if (id) await assertOwnedReference(db, clientId, kind, id);
}
