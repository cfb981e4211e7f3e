/**
 * Inbound notifications of the verification provider: verify the signature (401 otherwise), write
 * the re-read as a job deduplicated on the notification's event id (the receipt), answer within
 * NOTIFICATION_ANSWER_BUDGET_MS. The job fetches the session's current result from the provider
 * (outside any transaction), then in ONE transaction: upsert the session's record (only when newer:
 * replays and late, older reads are no-ops), recompute the subject's status from its latest record
 * and emit kyc.status_changed / kyb.status_changed (source provider_webhook), and the feature's
 * own `kyc.verification_result` on the app's bus (declared below, beside its emitter).
 */
import type { Tx } from '../../db/client';
import type { Deps } from '../../deps';
import { defineJob, enqueueJobId, type JobDefinition, runJobsNow } from '../../platform/jobs/index';
import type {
  SessionContext,
  VerificationKind,
  VerificationNotification,
  VerificationResult,
} from '../../providers/verification/port';
import { decrypt, encrypt } from '../../shared/crypto';
import { unauthorized } from '../../shared/errors';
import { canonicalJson } from '../../shared/fingerprint';
import { recordActivity } from '../activity/activity-writer.service';
import { PaymentMessages } from '../payments/payments.messages';
import { statusFromLatestRecord } from './kyc.machine';
import { changeBusiness, changeUser, type StatusSource } from './subject-status.transitions';
import {
  findRecordBySession,
  findSessionByProviderRef,
  findSessionsOfProviderSubject,
  insertRecord,
  latestReportedRecord,
  lockBusiness,
  lockUser,
  type RecordInsert,
  type RecordRow,
  type SessionRow,
  updateRecordIfOlder,
  updateSession,
} from './verification.repo';

/**
 * The kyc feature's event on the app's bus (docs/platform.md, "Events"): `kyc.verification_result`,
 * a provider's result recorded for a verification, inside the transaction that records it.
 * Monitoring's identity_reverification remediation follows it.
 */
export interface VerificationResultEvent {
  session: SessionRow;
  record: RecordRow;
  /** When the result was recorded. */
  at: Date;
}

declare module '../../platform/events' {
  interface AppEvents {
    'kyc.verification_result': VerificationResultEvent;
  }
}

export function verifyVerificationNotification(
  deps: Deps,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
): VerificationNotification {
  const n = deps.providers.verification.verifyNotification(rawBody, headers);
  if (!n) throw unauthorized(PaymentMessages.invalidNotificationSignature);
  return n;
}

/** Record columns from a provider result; sensitive values are encrypted here and never logged. */
export function recordValues(
  key: Buffer,
  r: VerificationResult,
  now: Date,
): Omit<RecordInsert, 'clientId' | 'sessionId' | 'kind'> {
  const enc = (v: string | null | undefined) => (v === null || v === undefined ? null : encrypt(key, v));
  const encJson = (v: unknown) => (v === null || v === undefined ? null : encrypt(key, JSON.stringify(v)));
  const id = r.identity;
  const c = r.checks;
  const co = r.company;
  return {
    status: r.status,
    dataTrusted: r.dataTrusted,
    fetchedAt: now,
    decisionAt: r.decisionAt,
    providerUpdatedAt: r.updatedAt,
    providerRevision: r.revision,
    firstName: id?.firstName ?? null,
    lastName: id?.lastName ?? null,
    fullName: id?.fullName ?? null,
    dateOfBirthEnc: enc(id?.dateOfBirth),
    nationality: id?.nationality ?? null,
    documentType: id?.documentType ?? null,
    documentIssuingCountry: id?.documentIssuingCountry ?? null,
    documentExpiry: id?.documentExpiry ?? null,
    gender: id?.gender ?? null,
    livenessStatus: c.liveness?.status ?? null,
    livenessScore: c.liveness?.score ?? null,
    faceMatchStatus: c.faceMatch?.status ?? null,
    faceMatchScore: c.faceMatch?.score ?? null,
    nfcStatus: c.nfc?.status ?? null,
    poaStatus: c.poa?.status ?? null,
    amlStatus: c.aml?.status ?? null,
    amlTotalHits: c.aml?.totalHits ?? null,
    documentNumberEnc: enc(id?.documentNumber),
    sofQuestionnaireEnc: encJson(r.sofQuestionnaire),
    poaEnc: encJson(c.poa?.details),
    amlHitsEnc: encJson(c.aml?.hits),
    documents: r.documents.length ? r.documents : null,
    companyName: co?.companyName ?? null,
    registrationNumber: co?.registrationNumber ?? null,
    registrationCountry: co?.registrationCountry ?? null,
    companyType: co?.companyType ?? null,
    incorporationDate: co?.incorporationDate ?? null,
    registryStatus: co?.registryStatus ?? null,
    businessRegistryDetails: co?.registryDetails ?? null,
    businessKeyPeople: co?.keyPeople ?? null,
    updatedAt: now,
  };
}

/** The record's data about the person or the company (not the review's state). */
const PERSON_COLUMNS = [
  'firstName',
  'lastName',
  'fullName',
  'dateOfBirthEnc',
  'nationality',
  'documentType',
  'documentIssuingCountry',
  'documentExpiry',
  'gender',
  'documentNumberEnc',
  'poaEnc',
  'companyName',
  'registrationNumber',
  'registrationCountry',
  'companyType',
  'incorporationDate',
  'businessRegistryDetails',
  'businessKeyPeople',
] as const satisfies readonly (keyof RecordInsert & keyof RecordRow)[];

/**
 * The person data of `values` that differ from the record's (encrypted columns compared in clear:
 * their ciphertexts differ on every encryption); empty when nothing changed. A value the provider
 * no longer reports never blanks a column that holds one: a correction changes data, it does not
 * erase them (an erasure comes with a reset or a new review, which replace the whole record).
 */
function changedPersonData(
  key: Buffer,
  existing: RecordRow,
  values: Omit<RecordInsert, 'clientId' | 'sessionId' | 'kind'>,
): Partial<RecordInsert> {
  // jsonb columns come back with their keys reordered: compared as canonical JSON.
  const plain = (column: string, v: unknown) =>
    column.endsWith('Enc') && typeof v === 'string' ? decrypt(key, v) : canonicalJson(v ?? null);
  const changed: Partial<RecordInsert> = {};
  for (const c of PERSON_COLUMNS) {
    const next = values[c] ?? null;
    if (next === null && existing[c] !== null && existing[c] !== undefined) continue;
    if (plain(c, existing[c]) !== plain(c, next)) (changed as Record<string, unknown>)[c] = next;
  }
  return changed;
}

/** A record column's name as the API spells it (`dateOfBirthEnc` -> `date_of_birth`). */
const fieldName = (column: string) =>
  column.replace(/Enc$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Recomputes the subject's status from its latest deciding record (subject row locked by the caller). */
async function followRecords(
  tx: Tx,
  deps: Pick<Deps, 'clock'>,
  session: SessionRow,
  record: RecordRow,
  source: StatusSource,
) {
  const kind = session.kind as VerificationKind;
  const subjectId = (kind === 'kyc' ? session.userId : session.businessCustomerId)!;
  const latest = await latestReportedRecord(tx, kind, session.clientId, subjectId, true);
  const status = statusFromLatestRecord(latest?.status ?? null);
  const ctx = {
    source,
    occurredAt: record.providerUpdatedAt,
    now: deps.clock.now(),
    dedupKey: `${kind}:${subjectId}:record:${record.id}:${record.providerRevision}`,
  };
  const fromService = latest ? { verificationSource: 'service' } : {};
  if (kind === 'kyc') {
    const user = await lockUser(tx, session.clientId, subjectId);
    // The client switched this user to external attestation after the link: keep the record only.
    if (user?.verificationMode !== 'service_kyc') return;
    await changeUser(tx, user, { status, ...fromService }, ctx);
  } else {
    const b = await lockBusiness(tx, session.clientId, subjectId);
    if (!b || b.verificationMode === 'external_attestation') return;
    await changeBusiness(tx, b, { status, ...fromService }, ctx);
  }
}

/**
 * Applies the provider's current result of a session. Returns applied=false when the result is
 * not newer than what is recorded (a replay or an out-of-order notification).
 */
export async function applyVerificationResult(
  deps: Deps,
  session: SessionRow,
  result: VerificationResult,
  source: StatusSource,
): Promise<{ applied: boolean; record: RecordRow | null }> {
  const key = deps.secrets.encryptionKey;
  return deps.db.transaction(async (tx) => {
    // Serialize every change of one subject behind its row lock.
    if (session.kind === 'kyc') await lockUser(tx, session.clientId, session.userId!);
    else await lockBusiness(tx, session.clientId, session.businessCustomerId!);
    const existing = await findRecordBySession(tx, session.id);
    let revision = result.revision;
    if (result.version) {
      // A vendor that re-decides: a changed state applies unless it is older than the recorded one;
      // the record's revision then simply counts the states applied.
      // A new attempt, or a restart (reset) after a recorded decision, always applies: the vendor's
      // time of it may not be renewed, so it can look older than the decision it replaces.
      const v = result.version;
      const newAttempt =
        v.attempt !== undefined &&
        existing?.providerVersion != null &&
        !existing.providerVersion.startsWith(`${v.attempt}|`);
      const restartAfterDecision =
        v.restart === true && (existing?.status === 'approved' || existing?.status === 'declined');
      if (existing && existing.providerVersion === v.key) {
        // The same review state, but the person's data may have been corrected (Sumsub's
        // applicantPersonalInfoChanged: "Applicant personal information has been changed",
        // https://docs.sumsub.com/docs/webhook-types): the corrected data are stored, the state,
        // the decision and the subject's status stay as they are.
        const changed = changedPersonData(key, existing, recordValues(key, result, deps.clock.now()));
        if (Object.keys(changed).length === 0) return { applied: false, record: existing };
        const now = deps.clock.now();
        const next = existing.providerRevision + 1;
        const row = await updateRecordIfOlder(tx, existing.id, next, {
          ...changed,
          providerRevision: next,
          fetchedAt: now,
          updatedAt: now,
        });
        // The audit trail names the changed fields, never their values (personal data).
        if (row)
          await recordActivity(tx, {
            clientId: session.clientId,
            action: 'verification_record.data_corrected',
            at: now,
            target: { type: 'verification_record', id: row.id, label: null },
            metadata: {
              verification_id: session.id,
              status: row.status,
              fields: Object.keys(changed).map(fieldName),
              source,
            },
          });
        return { applied: row !== undefined, record: row ?? existing };
      }
      if (
        existing &&
        !newAttempt &&
        !restartAfterDecision &&
        existing.providerUpdatedAt.getTime() > v.at.getTime()
      )
        return { applied: false, record: existing };
      revision = (existing?.providerRevision ?? 0) + 1;
    } else if (existing && existing.providerRevision >= result.revision)
      return { applied: false, record: existing };
    const values = {
      ...recordValues(key, { ...result, revision }, deps.clock.now()),
      providerVersion: result.version?.key ?? null,
    };
    const record = existing
      ? await updateRecordIfOlder(tx, existing.id, revision, values)
      : await insertRecord(tx, {
          ...values,
          clientId: session.clientId,
          sessionId: session.id,
          kind: session.kind,
          userId: session.userId,
          businessCustomerId: session.businessCustomerId,
        });
    if (!record) return { applied: false, record: existing ?? null };
    await followRecords(tx, deps, session, record, source);
    await deps.events.emit(tx, 'kyc.verification_result', { session, record, at: deps.clock.now() });
    return { applied: true, record };
  });
}

/**
 * Re-reads a session's result from the provider and applies it when newer; the session's
 * updated_at records that the provider was heard from (the reconciliation worker's clock).
 */
export async function refreshSession(
  deps: Deps,
  session: SessionRow,
  source: StatusSource,
  read: Pick<SessionContext, 'latest' | 'notice'> = {},
): Promise<{ applied: boolean; found: boolean }> {
  const result = await deps.providers.verification.fetchResult(session.providerRef!, {
    ...(await sessionContext(deps, session)),
    ...read,
  });
  await updateSession(deps.db, session.id, { updatedAt: deps.clock.now() });
  if (!result) return { applied: false, found: false };
  return { ...(await applyVerificationResult(deps, session, result, source)), found: true };
}

/** What the adapter is told about the session it reads (its level; whether a record exists). */
export async function sessionContext(deps: Deps, session: SessionRow): Promise<SessionContext> {
  const record = await findRecordBySession(deps.db, session.id);
  return {
    kind: session.kind as VerificationKind,
    checks: session.checks,
    level: session.level,
    recorded: record !== undefined,
    recordedVersion: record?.providerVersion ?? null,
  };
}

/** How many of a person's latest links a notification about the vendor's profile of them may concern. */
const SESSIONS_PER_SUBJECT_NOTIFICATION = 5;

/**
 * A notification about a vendor's profile of a person (reused by every link) concerns the newest of
 * its links whose result the vendor now reports: the newest link may be at another level (its
 * review not started) while the profile's review finished at an older link's level.
 */
async function refreshSubjectSessions(
  deps: Deps,
  subjectRef: string,
  notice: string | null,
): Promise<{ applied: boolean } | null> {
  const sessions = await findSessionsOfProviderSubject(
    deps.db,
    subjectRef,
    SESSIONS_PER_SUBJECT_NOTIFICATION,
  );
  if (sessions.length === 0) return null;
  // The newest link with a provider reference is the subject's latest: a rejection or a reset
  // decided at any level applies to it (see SessionContext.latest).
  let latest = true;
  for (const session of sessions) {
    if (!session.providerRef) continue;
    const r = await refreshSession(deps, session, 'provider_webhook', { latest, notice });
    if (r.found) return r;
    // Past the newest recorded link, older links are no longer the subject's latest.
    if (latest && (await findRecordBySession(deps.db, session.id))) latest = false;
  }
  return { applied: false };
}

/** What a notification's re-read job needs (the notification itself is only a hint). */
export type VerificationRereadPayload = {
  providerRef: string;
  scope: 'session' | 'applicant';
  type: string | null;
};

/** Re-reads a route is waiting for (job id -> whether it changed a record, null while running). */
const rereadOutcomes = new Map<string, boolean | null>();

/**
 * The re-read a notification asks for: fetch the result from the provider (outside any transaction)
 * and apply it. A provider outage throws: the job retries on the default backoff, and the
 * reconciliation worker reads undecided links anyway.
 */
export const verificationRereadJob = defineJob<VerificationRereadPayload>({
  kind: 'kyc.verification_reread',
  async run(deps, p, ctx) {
    let r: { applied: boolean } | null;
    if (p.scope === 'applicant') r = await refreshSubjectSessions(deps, p.providerRef, p.type);
    else {
      const session = await findSessionByProviderRef(deps.db, p.providerRef);
      r = session ? await refreshSession(deps, session, 'provider_webhook') : null;
    }
    if (!r) deps.log.info({ providerRef: p.providerRef }, 'verification notification for an unknown session');
    else if (!r.applied)
      deps.log.info(
        { providerRef: p.providerRef, type: p.type },
        'verification notification not newer than the recorded result (replay or out of order)',
      );
    if (rereadOutcomes.has(ctx.jobId)) rereadOutcomes.set(ctx.jobId, r?.applied ?? false);
  },
});

/**
 * How long the notification route waits for the re-read's first attempt before answering: Sumsub
 * counts no answer within 5 s as a failure and resends (https://docs.sumsub.com/docs/webhooks). A
 * re-read still running then goes on in the background (its job row is the receipt: a crash loses
 * nothing, the runner picks it up after the lease).
 */
export const NOTIFICATION_ANSWER_BUDGET_MS = 1500;

/**
 * POST /providers/verification/notifications, after the signature was verified: the receipt (the
 * re-read job, deduplicated on the notification's event id) is written in one transaction, then the
 * re-read runs at once within the answer's budget.
 */
export async function applyVerificationNotification(
  deps: Deps,
  n: VerificationNotification,
): Promise<{ received: true; applied: boolean }> {
  if (n.sandbox && deps.config.environment === 'production') {
    // A sandbox decision never touches a production record (a webhook set up on the wrong
    // environment, or a replay of a sandbox body): acknowledged, so it is not resent, and ignored.
    deps.log.warn(
      { providerRef: n.providerRef, type: n.type },
      'sandbox verification notification ignored by a production deployment',
    );
    return { received: true, applied: false };
  }
  const jobId = await deps.db.transaction((tx) =>
    enqueueJobId(tx, deps.clock, verificationRereadJob, {
      payload: { providerRef: n.providerRef, scope: n.scope ?? 'session', type: n.type ?? null },
      dedupeKey: n.eventId,
    }),
  );
  if (!jobId) {
    deps.log.info({ providerRef: n.providerRef }, 'duplicate verification notification ignored');
    return { received: true, applied: false };
  }
  rereadOutcomes.set(jobId, null);
  const run = runJobsNow(deps, [verificationRereadJob as JobDefinition<never>], [jobId]).catch((err) =>
    deps.log.warn({ err, jobId }, 'verification re-read could not start (the jobs runner retries it)'),
  );
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, NOTIFICATION_ANSWER_BUDGET_MS);
  });
  await Promise.race([run, budget]);
  clearTimeout(timer);
  const applied = rereadOutcomes.get(jobId) ?? false;
  rereadOutcomes.delete(jobId);
  return { received: true, applied };
}
