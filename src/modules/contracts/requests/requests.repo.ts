/** Queries of contract requests, participants, documents and the audit trail (always scoped by client). */
import { and, asc, count, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import {
  type ContractRequestStatus,
  contractAuditEvents,
  contractDocuments,
  contractParticipants,
  contractRequests,
} from '../../../db/schema/index';
import { containsPattern, type PageParams } from '../../../shared/pagination';

export type RequestRow = typeof contractRequests.$inferSelect;
export type ParticipantRow = typeof contractParticipants.$inferSelect;
export type DocumentRow = typeof contractDocuments.$inferSelect;
export type DocumentMeta = Omit<DocumentRow, 'content' | 'fields'>;

export async function findRequest(db: DbOrTx, clientId: string, id: string, lock = false) {
  const q = db
    .select()
    .from(contractRequests)
    .where(and(eq(contractRequests.clientId, clientId), eq(contractRequests.id, id)));
  const [r] = lock ? await q.for('update') : await q;
  return r ?? null;
}

/** Any client's request, locked: for workers and provider notifications. */
export async function lockRequestById(db: DbOrTx, id: string) {
  const [r] = await db.select().from(contractRequests).where(eq(contractRequests.id, id)).for('update');
  return r ?? null;
}

export async function findRequestByEnvelope(db: DbOrTx, ref: string) {
  const [r] = await db
    .select({ id: contractRequests.id })
    .from(contractRequests)
    .where(eq(contractRequests.envelopeRef, ref));
  return r?.id ?? null;
}

export function participantsOf(db: DbOrTx, requestId: string) {
  return db
    .select()
    .from(contractParticipants)
    .where(eq(contractParticipants.requestId, requestId))
    .orderBy(asc(contractParticipants.position));
}

/** The participants of several requests in one statement (a list page), each request's in order. */
export function participantsOfMany(db: DbOrTx, requestIds: string[]) {
  if (requestIds.length === 0) return Promise.resolve([] as ParticipantRow[]);
  return db
    .select()
    .from(contractParticipants)
    .where(inArray(contractParticipants.requestId, requestIds))
    .orderBy(asc(contractParticipants.requestId), asc(contractParticipants.position));
}

export async function findParticipantByTokenHash(db: DbOrTx, hash: string) {
  const [p] = await db.select().from(contractParticipants).where(eq(contractParticipants.tokenHash, hash));
  return p ?? null;
}

const metaColumns = {
  id: contractDocuments.id,
  requestId: contractDocuments.requestId,
  clientId: contractDocuments.clientId,
  templateId: contractDocuments.templateId,
  position: contractDocuments.position,
  kind: contractDocuments.kind,
  fileName: contractDocuments.fileName,
  sha256: contractDocuments.sha256,
  size: contractDocuments.size,
  createdAt: contractDocuments.createdAt,
};

export function documentsOf(db: DbOrTx, requestId: string): Promise<DocumentMeta[]> {
  return db
    .select(metaColumns)
    .from(contractDocuments)
    .where(eq(contractDocuments.requestId, requestId))
    .orderBy(asc(contractDocuments.kind), asc(contractDocuments.position));
}

/** The document metadata of several requests in one statement (a list page). */
export function documentsOfMany(db: DbOrTx, requestIds: string[]): Promise<DocumentMeta[]> {
  if (requestIds.length === 0) return Promise.resolve([]);
  return db
    .select(metaColumns)
    .from(contractDocuments)
    .where(inArray(contractDocuments.requestId, requestIds))
    .orderBy(asc(contractDocuments.kind), asc(contractDocuments.position));
}

export async function documentContent(db: DbOrTx, requestId: string, documentId: string) {
  const [d] = await db
    .select()
    .from(contractDocuments)
    .where(and(eq(contractDocuments.requestId, requestId), eq(contractDocuments.id, documentId)));
  return d ?? null;
}

export function originalsOf(db: DbOrTx, requestId: string) {
  return documentsOfKind(db, requestId, 'original');
}

/** A request's documents of one kind (`original`, or `signed` once sealed), with their content. */
export function documentsOfKind(db: DbOrTx, requestId: string, kind: 'original' | 'signed') {
  return db
    .select()
    .from(contractDocuments)
    .where(and(eq(contractDocuments.requestId, requestId), eq(contractDocuments.kind, kind)))
    .orderBy(asc(contractDocuments.position));
}

export async function updateRequest(
  tx: DbOrTx,
  id: string,
  values: Partial<typeof contractRequests.$inferInsert>,
) {
  const [r] = await tx.update(contractRequests).set(values).where(eq(contractRequests.id, id)).returning();
  return r!;
}

export async function updateParticipant(
  tx: DbOrTx,
  id: string,
  values: Partial<typeof contractParticipants.$inferInsert>,
) {
  const [p] = await tx
    .update(contractParticipants)
    .set(values)
    .where(eq(contractParticipants.id, id))
    .returning();
  return p!;
}

export async function addAudit(
  tx: DbOrTx,
  e: {
    requestId: string;
    participantId?: string | null;
    type: string;
    at: Date;
    ip?: string | null;
    userAgent?: string | null;
  },
) {
  await tx.insert(contractAuditEvents).values({
    requestId: e.requestId,
    participantId: e.participantId ?? null,
    type: e.type,
    occurredAt: e.at,
    ip: e.ip ?? null,
    userAgent: e.userAgent ?? null,
  });
}

export function auditOf(db: DbOrTx, requestId: string) {
  return db
    .select()
    .from(contractAuditEvents)
    .where(eq(contractAuditEvents.requestId, requestId))
    .orderBy(asc(contractAuditEvents.occurredAt), asc(contractAuditEvents.seq));
}

export interface RequestFilter {
  clientId: string;
  status?: ContractRequestStatus;
  flowId?: string;
  templateId?: string;
  userId?: string;
  businessCustomerId?: string;
  q?: string;
  from?: string;
  to?: string;
}

export async function listRequests(db: DbOrTx, f: RequestFilter, page: PageParams) {
  const r = contractRequests;
  const where: SQL[] = [eq(r.clientId, f.clientId)];
  if (f.status) where.push(eq(r.status, f.status));
  if (f.flowId) where.push(eq(r.flowId, f.flowId));
  if (f.templateId) where.push(sql`${r.templateIds} @> ${JSON.stringify([f.templateId])}::jsonb`);
  if (f.userId)
    where.push(
      sql`exists (select 1 from contract_participants p where p.request_id = ${r.id} and p.user_id = ${f.userId}::uuid)`,
    );
  if (f.businessCustomerId)
    where.push(
      sql`exists (select 1 from contract_participants p where p.request_id = ${r.id} and p.business_customer_id = ${f.businessCustomerId}::uuid)`,
    );
  if (f.from) where.push(sql`${r.createdAt} >= ${new Date(f.from)}`);
  if (f.to) where.push(sql`${r.createdAt} < ${new Date(f.to)}`);
  if (f.q) {
    const p = containsPattern(f.q);
    where.push(sql`(${r.title} ilike ${p} or coalesce(${r.externalReference}, '') ilike ${p}
      or exists (select 1 from contract_participants p where p.request_id = ${r.id} and p.email ilike ${p}))`);
  }
  const cond = and(...where);
  // The certificate PDF is not part of a list row (the view shows its sha256).
  const { certificate: _certificate, ...listColumns } = getTableColumns(r);
  const [rows, totals] = await Promise.all([
    db
      .select(listColumns)
      .from(r)
      .where(cond)
      .orderBy(desc(r.createdAt), desc(r.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(r).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}
