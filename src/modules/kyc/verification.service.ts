/**
 * Verification links (KYC for users, KYB for business customers), resubmission, external
 * attestation and the sandbox simulate action. Provider calls happen outside transactions: the
 * link is recorded first (status creating), then the provider is asked, then the link and the
 * subject's status are committed together with the status event.
 */

import type { Deps } from '../../deps';
import type { ClientAuth } from '../../plugins/auth';
import { DEFAULT_LEVEL } from '../../providers/verification/levels';
import {
  type SimulatedChecks,
  type SimulatedOutcome,
  type VerificationKind,
  VerificationUnavailableError,
} from '../../providers/verification/port';
import { addSeconds } from '../../shared/clock';
import { AppError, badRequest, forbidden, invalidField, notFound } from '../../shared/errors';
import { randomToken } from '../../shared/ids';
import { M } from '../../shared/messages';
import { recordActivity } from '../activity/activity-writer.service';
import type { VisibilityGroup } from '../admin/clients-admin.service';
import {
  type BusinessRow,
  findClientBusiness,
  findClientUser,
  type UserRow,
} from '../customers/customers.repo';
import { toUserView } from '../customers/customers.service';
import {
  ATTESTATION_TO_STATUS,
  type AttestationStatus,
  RESUBMITTABLE,
  statusAfterNewLink,
} from './kyc.machine';
import { KycMessages } from './kyc.messages';
import { findLevel } from './levels.repo';
import { setLinkExpiryTimer } from './link-expiry.service';
import { applyVerificationResult, sessionContext } from './notifications.service';
import { toRecordView } from './records.view';
import { changeBusiness, changeUser } from './subject-status.transitions';
import {
  findClient,
  findClientSession,
  findRecordBySession,
  findSession,
  insertSession,
  latestReferencedSessionOfSubject,
  latestReportedRecord,
  lockBusiness,
  lockUser,
  updateSession,
} from './verification.repo';

export interface LinkInput {
  level?: string;
  redirect_url?: string | null;
}

const notFoundOf = (kind: VerificationKind) =>
  notFound(kind === 'kyc' ? M.userNotFound : M.businessCustomerNotFound);

export function verificationUrl(deps: Pick<Deps, 'config'>, token: string): string {
  return `${deps.config.publicUrl}/verify/${token}`;
}

async function loadSubject(deps: Deps, kind: VerificationKind, clientId: string, id: string) {
  const row =
    kind === 'kyc'
      ? await findClientUser(deps.db, clientId, id)
      : await findClientBusiness(deps.db, clientId, id);
  if (!row) throw notFoundOf(kind);
  return row;
}

function subjectOf(kind: VerificationKind, row: UserRow | BusinessRow) {
  if (kind === 'kyc') {
    const u = row as UserRow;
    return { kind, firstName: u.firstName, lastName: u.lastName, email: u.email };
  }
  const b = row as BusinessRow;
  return {
    kind,
    email: b.email,
    companyName: b.companyName,
    registrationNumber: b.registrationNumber,
    country: b.country,
  };
}

/** POST /kyc/users/{id}/verification-link and POST /kyb/businesses/{id}/verification-link. */
export async function createVerificationLink(
  deps: Deps,
  auth: Pick<ClientAuth, 'clientId'>,
  kind: VerificationKind,
  subjectId: string,
  input: LinkInput,
) {
  const client = await findClient(deps.db, auth.clientId);
  if (!client?.kycLinksEnabled) throw forbidden(M.kycLinksDisabled);
  const subject = await loadSubject(deps, kind, auth.clientId, subjectId);
  const levelName = input.level ?? DEFAULT_LEVEL[kind];
  const level = await findLevel(deps.db, auth.clientId, kind, levelName);
  if (!level) throw invalidField(['body', 'level'], KycMessages.unknownLevel(levelName), 'enum');

  const now = deps.clock.now();
  const session = await insertSession(deps.db, {
    clientId: auth.clientId,
    kind,
    userId: kind === 'kyc' ? subject.id : null,
    businessCustomerId: kind === 'kyb' ? subject.id : null,
    level: level.name,
    checks: level.checks,
    token: randomToken(24),
    redirectUrl: input.redirect_url ?? null,
    status: 'creating',
    expiresAt: addSeconds(now, deps.config.verificationLinkTtlSeconds),
    createdAt: now,
    updatedAt: now,
  });
  let providerRef: string;
  try {
    const previous = await latestReferencedSessionOfSubject(deps.db, kind, auth.clientId, subject.id);
    ({ providerRef } = await deps.providers.verification.createSession({
      subject: subjectOf(kind, subject),
      level: level.name,
      checks: level.checks,
      verificationId: session.id,
      subjectId: subject.id,
      previousProviderRef: previous?.providerRef ?? null,
    }));
  } catch (err) {
    // Nothing else was written: the link is marked failed (never usable) and the subject is untouched.
    await updateSession(deps.db, session.id, { status: 'failed', updatedAt: deps.clock.now() });
    if (err instanceof VerificationUnavailableError) {
      deps.log.warn({ kind: err.kind, verificationId: session.id }, 'verification provider unavailable');
      throw new AppError(503, KycMessages.providerUnavailable);
    }
    deps.log.error({ err, verificationId: session.id }, 'verification provider refused the session');
    throw new AppError(500, M.failedToInitiateKyc);
  }

  await deps.db.transaction(async (tx) => {
    const at = deps.clock.now();
    const usable = await updateSession(tx, session.id, { providerRef, status: 'pending', updatedAt: at });
    if (usable) await setLinkExpiryTimer(tx, deps.clock, usable);
    const ctx = {
      source: 'client_api' as const,
      occurredAt: at,
      now: at,
      dedupKey: `${kind}:${subject.id}:link:${session.id}`,
    };
    if (kind === 'kyc') {
      const u = (await lockUser(tx, auth.clientId, subject.id))!;
      await changeUser(
        tx,
        u,
        { status: statusAfterNewLink(u.kycStatus), verificationMode: 'service_kyc' },
        ctx,
      );
    } else {
      const b = (await lockBusiness(tx, auth.clientId, subject.id))!;
      await changeBusiness(
        tx,
        b,
        { status: statusAfterNewLink(b.kybStatus), verificationMode: 'service_kyb' },
        ctx,
      );
    }
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: kind === 'kyc' ? 'kyc_link.created' : 'kyb_link.created',
      at,
      target: { type: kind === 'kyc' ? 'user' : 'business_customer', id: subject.id, label: null },
      metadata: { verification_id: session.id },
    });
  });
  return {
    verification_id: session.id,
    verification_url: verificationUrl(deps, session.token),
    expires_at: session.expiresAt.toISOString(),
    status: 'pending' as const,
  };
}

/** A link's state for another area's page (monitoring's remediation page); null when unknown. */
export async function verificationLinkState(deps: Pick<Deps, 'db' | 'clock' | 'config'>, id: string) {
  const session = await findSession(deps.db, id);
  if (!session) return null;
  const record = await findRecordBySession(deps.db, session.id);
  const open = session.status === 'pending' && !session.submittedAt && session.expiresAt > deps.clock.now();
  return {
    verification_id: session.id,
    verification_url: open ? verificationUrl(deps, session.token) : null,
    expires_at: session.expiresAt.toISOString(),
    record_status: record?.status ?? null,
  };
}

/** POST /kyc/{user_id}/resubmit and /kyb/{business_customer_id}/resubmit: a new link after declined, expired or in_review. */
export async function resubmitVerification(
  deps: Deps,
  auth: ClientAuth,
  kind: VerificationKind,
  subjectId: string,
  input: LinkInput,
) {
  await loadSubject(deps, kind, auth.clientId, subjectId);
  const last = await latestReportedRecord(deps.db, kind, auth.clientId, subjectId, false);
  if (!last) throw badRequest(KycMessages.nothingToResubmit);
  if (!(RESUBMITTABLE as readonly string[]).includes(last.status))
    throw badRequest(KycMessages.notResubmittable(last.status));
  const previous = await findSession(deps.db, last.sessionId);
  const link = await createVerificationLink(deps, auth, kind, subjectId, {
    level: input.level ?? previous?.level,
    redirect_url: input.redirect_url ?? previous?.redirectUrl ?? null,
  });
  if (last.status === 'declined') await recordFinalDecline(deps, link.verification_id);
  return link;
}

/**
 * A vendor that keeps one profile per person may already hold a final rejection for it (Sumsub's
 * FINAL): the new link can change nothing, so its record says so at once and the subject returns
 * to rejected instead of waiting as pending. Best effort: reconciliation reads it later otherwise.
 */
async function recordFinalDecline(deps: Deps, verificationId: string) {
  const session = await findSession(deps.db, verificationId);
  if (!session?.providerRef || !deps.providers.verification.reconcile) return;
  try {
    const result = await deps.providers.verification.fetchResult(
      session.providerRef,
      await sessionContext(deps, session),
    );
    if (result?.final) await applyVerificationResult(deps, session, result, 'provider_webhook');
  } catch (err) {
    deps.log.warn({ err, verificationId }, 'reading the provider result after a resubmission failed');
  }
}

/** POST /kyc/users/{user_id}/attestation: the client vouches for the user's verification itself. */
export async function attestUser(
  deps: Deps,
  auth: ClientAuth,
  userId: string,
  input: { status: AttestationStatus; reference?: string | null; note?: string | null },
) {
  const exists = await findClientUser(deps.db, auth.clientId, userId);
  if (!exists) throw notFound(M.userNotFound);
  const user = await deps.db.transaction(async (tx) => {
    const u = await lockUser(tx, auth.clientId, userId);
    if (!u) throw notFound(M.userNotFound);
    const now = deps.clock.now();
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'user.kyc_attested',
      at: now,
      target: { type: 'user', id: userId, label: u.email },
      changes: { kyc_status: { from: u.kycStatus, to: ATTESTATION_TO_STATUS[input.status] } },
      metadata: { reference: input.reference ?? null },
    });
    return changeUser(
      tx,
      u,
      {
        status: ATTESTATION_TO_STATUS[input.status],
        verificationMode: 'external_attestation',
        externalStatus: input.status,
        verificationSource: 'external',
        externalReference: input.reference ?? null,
        externalNote: input.note ?? null,
      },
      {
        source: 'client_api',
        occurredAt: now,
        now,
        dedupKey: `kyc:${userId}:attestation:${randomToken(12)}`,
      },
    );
  });
  return toUserView(user);
}

/** POST /sandbox/verifications/{verification_id}/simulate: the sandbox provider decides, through the notification route. */
export async function simulateVerification(
  deps: Deps,
  auth: ClientAuth,
  verificationId: string,
  outcome: SimulatedOutcome,
  checks?: SimulatedChecks,
) {
  const provider = deps.providers.verification;
  if (deps.config.environment !== 'sandbox' || !provider.simulate) throw notFound(M.notFound);
  const session = await findClientSession(deps.db, auth.clientId, verificationId);
  if (!session?.providerRef) throw notFound(KycMessages.verificationNotFound);
  try {
    await provider.simulate(session.providerRef, outcome, checks);
  } catch (err) {
    deps.log.error({ err, verificationId }, 'sandbox verification simulation failed');
    throw new AppError(503, KycMessages.providerUnavailable);
  }
  const record = await findRecordBySession(deps.db, session.id);
  if (!record) throw new AppError(503, KycMessages.providerUnavailable);
  const client = await findClient(deps.db, auth.clientId);
  return toRecordView(
    record,
    new Set(client?.visibilityGroups as VisibilityGroup[]),
    deps.secrets.encryptionKey,
  );
}
