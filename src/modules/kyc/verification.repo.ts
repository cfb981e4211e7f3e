/** Queries of the verification feature: sessions (links), records, subject rows under lock. */
import {
  and,
  asc,
  desc,
  eq,
  exists,
  gt,
  inArray,
  isNull,
  like,
  lte,
  ne,
  not,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../../db/client';
import {
  businessCustomers,
  clients,
  kycUsers,
  verificationConsents,
  verificationRecords,
  verificationSessions,
} from '../../db/schema/index';
import type { VerificationKind } from '../../providers/verification/port';
import { DECIDING_RECORD_STATUSES } from './kyc.machine';

export type SessionRow = typeof verificationSessions.$inferSelect;
export type RecordRow = typeof verificationRecords.$inferSelect;
export type RecordInsert = typeof verificationRecords.$inferInsert;

export async function findClient(db: DbOrTx, clientId: string) {
  const [row] = await db
    .select({
      id: clients.id,
      companyName: clients.companyName,
      kycLinksEnabled: clients.kycLinksEnabled,
      visibilityGroups: clients.visibilityGroups,
    })
    .from(clients)
    .where(eq(clients.id, clientId));
  return row;
}

export async function insertSession(db: DbOrTx, values: typeof verificationSessions.$inferInsert) {
  const [row] = await db.insert(verificationSessions).values(values).returning();
  return row!;
}

export async function updateSession(
  db: DbOrTx,
  id: string,
  set: Partial<typeof verificationSessions.$inferInsert>,
) {
  const [row] = await db
    .update(verificationSessions)
    .set(set)
    .where(eq(verificationSessions.id, id))
    .returning();
  return row;
}

export async function findSessionByToken(db: DbOrTx, token: string) {
  const [row] = await db.select().from(verificationSessions).where(eq(verificationSessions.token, token));
  return row;
}

export async function findSessionByProviderRef(db: DbOrTx, providerRef: string) {
  const [row] = await db
    .select()
    .from(verificationSessions)
    .where(eq(verificationSessions.providerRef, providerRef));
  return row;
}

/**
 * The latest link of a provider's profile of a person (sessions referenced `<subject ref>:<verification id>`,
 * as the Sumsub adapter does): the one its notifications concern.
 */
export async function findLatestSessionOfProviderSubject(db: DbOrTx, subjectRef: string) {
  const [row] = await findSessionsOfProviderSubject(db, subjectRef, 1);
  return row;
}

/** The subject's newest link the provider accepted (its reference names the provider's profile of the person). */
export async function latestReferencedSessionOfSubject(
  db: DbOrTx,
  kind: 'kyc' | 'kyb',
  clientId: string,
  subjectId: string,
) {
  const s = verificationSessions;
  const [row] = await db
    .select()
    .from(s)
    .where(
      and(
        eq(s.clientId, clientId),
        kind === 'kyc' ? eq(s.userId, subjectId) : eq(s.businessCustomerId, subjectId),
        sql`${s.providerRef} is not null`,
      ),
    )
    .orderBy(desc(s.createdAt), desc(s.id))
    .limit(1);
  return row;
}

/** The latest links of a provider's profile of a person, newest first (see findLatestSessionOfProviderSubject). */
export function findSessionsOfProviderSubject(db: DbOrTx, subjectRef: string, limit: number) {
  return db
    .select()
    .from(verificationSessions)
    .where(like(verificationSessions.providerRef, `${subjectRef.replace(/[\\%_]/g, '\\$&')}:%`))
    .orderBy(desc(verificationSessions.createdAt), desc(verificationSessions.id))
    .limit(limit);
}

/**
 * Links whose result may still change and whose provider was last heard from before `before`
 * (the reconciliation worker's queue): provider accepted, not expired unused, record missing or not decided.
 */
export async function findSessionsToReconcile(db: DbOrTx, before: Date, limit: number) {
  const s = verificationSessions;
  return db
    .select()
    .from(s)
    .where(
      and(
        inArray(s.status, ['pending', 'submitted']),
        lte(s.updatedAt, before),
        sql`${s.providerRef} is not null`,
        not(
          exists(
            db
              .select({ one: sql`1` })
              .from(verificationRecords)
              .where(
                and(
                  eq(verificationRecords.sessionId, s.id),
                  inArray(verificationRecords.status, ['approved', 'declined']),
                ),
              ),
          ),
        ),
      ),
    )
    .orderBy(asc(s.updatedAt))
    .limit(limit);
}

/**
 * Approved links whose provider was last heard from before `before` (the re-check of approved
 * subjects), oldest first: served by the partial index on referenced links' updated_at and the
 * records' session index.
 */
export async function findApprovedSessionsToRecheck(db: DbOrTx, before: Date, limit: number) {
  const s = verificationSessions;
  return db
    .select()
    .from(s)
    .where(
      and(
        sql`${s.providerRef} is not null`,
        lte(s.updatedAt, before),
        exists(
          db
            .select({ one: sql`1` })
            .from(verificationRecords)
            .where(and(eq(verificationRecords.sessionId, s.id), eq(verificationRecords.status, 'approved'))),
        ),
      ),
    )
    .orderBy(asc(s.updatedAt))
    .limit(limit);
}

/** Rows of one subject under one client, in a table with client, user and business columns. */
const ofSubject = (
  t: { clientId: AnyPgColumn; userId: AnyPgColumn; businessCustomerId: AnyPgColumn },
  clientId: string,
  kind: VerificationKind,
  subjectId: string,
) =>
  and(
    eq(t.clientId, clientId),
    kind === 'kyc' ? eq(t.userId, subjectId) : eq(t.businessCustomerId, subjectId),
  );

/** Whether the subject has a link (under one client) that also meets `cond`. */
async function subjectHasLink(
  db: DbOrTx,
  subject: { clientId: string; kind: VerificationKind; subjectId: string },
  cond: SQL | undefined,
): Promise<boolean> {
  const [row] = await db
    .select({ id: verificationSessions.id })
    .from(verificationSessions)
    .where(and(ofSubject(verificationSessions, subject.clientId, subject.kind, subject.subjectId), cond))
    .limit(1);
  return row !== undefined;
}

/** Whether no later link of the same subject was accepted by the provider (an older one is superseded). */
export async function isLatestLinkOfSubject(db: DbOrTx, session: SessionRow): Promise<boolean> {
  const s = verificationSessions;
  const subject = {
    clientId: session.clientId,
    kind: session.kind as VerificationKind,
    subjectId: (session.userId ?? session.businessCustomerId)!,
  };
  return !(await subjectHasLink(
    db,
    subject,
    and(sql`${s.providerRef} is not null`, gt(s.createdAt, session.createdAt)),
  ));
}

export async function findClientSession(db: DbOrTx, clientId: string, id: string) {
  const [row] = await db
    .select()
    .from(verificationSessions)
    .where(and(eq(verificationSessions.id, id), eq(verificationSessions.clientId, clientId)));
  return row;
}

export async function findSession(db: DbOrTx, id: string) {
  const [row] = await db.select().from(verificationSessions).where(eq(verificationSessions.id, id));
  return row;
}

/** Marks a usable link as used (compare-and-set: only one submission wins). */
export async function markSessionSubmitted(db: DbOrTx, id: string, now: Date) {
  const rows = await db
    .update(verificationSessions)
    .set({ status: 'submitted', submittedAt: now, updatedAt: now })
    .where(
      and(
        eq(verificationSessions.id, id),
        eq(verificationSessions.status, 'pending'),
        gt(verificationSessions.expiresAt, now),
      ),
    )
    .returning({ id: verificationSessions.id });
  return rows.length === 1;
}

/** What is kept as evidence of an acceptance (verification_consents, append-only). */
export interface ConsentEvidence {
  provider: string;
  version: string;
  text: string;
  privacyUrl: string | null;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Records the person's acceptance of the disclosure on an open link, with its evidence (the text
 * shown, IP address, user agent) in the same transaction. A link accepted under another version of
 * the text takes the new acceptance (the person was asked again); the same version accepted twice
 * keeps the first. Answers the acceptance now on the link (null when the link is expired or unknown).
 */
export async function recordSessionConsent(
  db: Db,
  session: { id: string; clientId: string },
  evidence: ConsentEvidence,
  now: Date,
) {
  const s = verificationSessions;
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(s)
      .set({ consentAcceptedAt: now, consentVersion: evidence.version, updatedAt: now })
      .where(
        and(
          eq(s.id, session.id),
          eq(s.clientId, session.clientId),
          or(isNull(s.consentAcceptedAt), isNull(s.consentVersion), ne(s.consentVersion, evidence.version)),
          gt(s.expiresAt, now),
        ),
      )
      .returning({ id: s.id });
    if (updated)
      await tx.insert(verificationConsents).values({
        clientId: session.clientId,
        sessionId: session.id,
        ...evidence,
        acceptedAt: now,
      });
    const [row] = await tx
      .select({ at: s.consentAcceptedAt, version: s.consentVersion })
      .from(s)
      .where(and(eq(s.id, session.id), eq(s.clientId, session.clientId)));
    return row?.at && row.version === evidence.version ? { acceptedAt: row.at, version: row.version } : null;
  });
}

/** A link's consent evidence, oldest first. */
export function findSessionConsents(db: DbOrTx, clientId: string, sessionId: string) {
  return db
    .select()
    .from(verificationConsents)
    .where(and(eq(verificationConsents.clientId, clientId), eq(verificationConsents.sessionId, sessionId)))
    .orderBy(verificationConsents.acceptedAt, verificationConsents.id);
}

export async function findRecordBySession(db: DbOrTx, sessionId: string) {
  const [row] = await db
    .select()
    .from(verificationRecords)
    .where(eq(verificationRecords.sessionId, sessionId));
  return row;
}

export async function insertRecord(db: DbOrTx, values: RecordInsert) {
  const [row] = await db.insert(verificationRecords).values(values).returning();
  return row!;
}

export async function updateRecordIfOlder(
  db: DbOrTx,
  id: string,
  revision: number,
  values: Partial<RecordInsert>,
) {
  const [row] = await db
    .update(verificationRecords)
    .set(values)
    .where(and(eq(verificationRecords.id, id), sql`${verificationRecords.providerRevision} < ${revision}`))
    .returning();
  return row;
}

const subjectCond = (kind: VerificationKind, clientId: string, subjectId: string) =>
  and(ofSubject(verificationRecords, clientId, kind, subjectId), eq(verificationRecords.kind, kind));

/** The spec's order: decision_at descending with nulls last, then fetched_at descending. */
const specOrder = [
  sql`${verificationRecords.decisionAt} desc nulls last`,
  desc(verificationRecords.fetchedAt),
  desc(verificationRecords.id),
];

export function listSubjectRecords(db: DbOrTx, kind: VerificationKind, clientId: string, subjectId: string) {
  return db
    .select()
    .from(verificationRecords)
    .where(subjectCond(kind, clientId, subjectId))
    .orderBy(...specOrder);
}

export async function mostRecentRecord(
  db: DbOrTx,
  kind: VerificationKind,
  clientId: string,
  subjectId: string,
) {
  const [row] = await db
    .select()
    .from(verificationRecords)
    .where(subjectCond(kind, clientId, subjectId))
    .orderBy(...specOrder)
    .limit(1);
  return row;
}

/** The record the provider reported last (provider time, then revision); optionally only deciding statuses. */
export async function latestReportedRecord(
  db: DbOrTx,
  kind: VerificationKind,
  clientId: string,
  subjectId: string,
  decidingOnly: boolean,
) {
  const [row] = await db
    .select()
    .from(verificationRecords)
    .where(
      and(
        subjectCond(kind, clientId, subjectId),
        decidingOnly ? inArray(verificationRecords.status, DECIDING_RECORD_STATUSES) : undefined,
      ),
    )
    .orderBy(
      desc(verificationRecords.providerUpdatedAt),
      desc(verificationRecords.fetchedAt),
      desc(verificationRecords.sessionId),
    )
    .limit(1);
  return row;
}

export async function lockUser(db: DbOrTx, clientId: string, userId: string) {
  const [row] = await db
    .select()
    .from(kycUsers)
    .where(and(eq(kycUsers.id, userId), eq(kycUsers.clientId, clientId)))
    .for('update');
  return row;
}

export async function lockBusiness(db: DbOrTx, clientId: string, id: string) {
  const [row] = await db
    .select()
    .from(businessCustomers)
    .where(and(eq(businessCustomers.id, id), eq(businessCustomers.clientId, clientId)))
    .for('update');
  return row;
}

/** Marks an unused link expired (compare-and-set: a submission that won first keeps it). */
export async function markLinkExpired(db: DbOrTx, id: string, now: Date) {
  const rows = await db
    .update(verificationSessions)
    .set({ status: 'expired', updatedAt: now })
    .where(
      and(
        eq(verificationSessions.id, id),
        eq(verificationSessions.status, 'pending'),
        lte(verificationSessions.expiresAt, now),
      ),
    )
    .returning();
  return rows[0];
}

/**
 * Whether the subject still has a verification under way: a usable link, one being created, or a
 * submitted one the provider has not reported on yet.
 */
export async function hasOpenVerification(
  db: DbOrTx,
  kind: VerificationKind,
  clientId: string,
  subjectId: string,
  now: Date,
): Promise<boolean> {
  const s = verificationSessions;
  return subjectHasLink(
    db,
    { clientId, kind, subjectId },
    or(
      and(inArray(s.status, ['creating', 'pending']), gt(s.expiresAt, now)),
      and(
        eq(s.status, 'submitted'),
        not(
          exists(
            db
              .select({ one: sql`1` })
              .from(verificationRecords)
              .where(eq(verificationRecords.sessionId, s.id)),
          ),
        ),
      ),
    ),
  );
}
