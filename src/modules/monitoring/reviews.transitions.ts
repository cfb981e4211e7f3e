/**
 * Reviewer decisions (with notes and the sanctions allowlist), the end user's remediation
 * submission, remediation expiry (worker and sandbox simulate). Each locks the row, asks the
 * machine, and commits the move with its event, activity entry and notifications.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { MonitoredTransactionInsert } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { defineTimer, runDueTimers } from '../../platform/jobs/index';
import type { ClientAuth } from '../../plugins/auth';
import { AppError, badRequest, forbidden, invalidField, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { findClient } from '../kyc/verification.repo';
import { lockOwnershipInTx } from '../screening/ownership.service';
import type { SanctionsMatch } from './engine.policy';
import {
  decideRemediationExpiry,
  decideRemediationSubmit,
  decideReview,
  issuesRemediation,
} from './monitoring.machine';
import { MonitoringMessages } from './monitoring.messages';
import { policyView } from './monitoring.policy';
import {
  addToAllowlist,
  findByToken,
  findMonitored,
  insertReview,
  latestPolicy,
  type MonitoredTransactionRow,
} from './monitoring.repo';
import type { ReviewInput } from './monitoring.schemas';
import { viewOf } from './monitoring.service';
import { moveDecision, REMEDIATION_EXPIRY } from './monitoring.transitions';
import {
  issueRemediationInTx,
  issueVerificationLink,
  type RemediationDocument,
  remediationBlocker,
  revokeRemediationInTx,
  storeRemediationDocument,
  subjectOfRow,
} from './remediation.service';
import { nameKey } from './sanctions.service';

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

const target = (r: MonitoredTransactionRow) => ({
  type: 'monitored_transaction',
  id: r.id,
  label: r.clientReference,
});

async function lockRow(tx: DbOrTx, clientId: string, id: string) {
  // An ownership request's outcome locks the request, then the transaction (monitoring.listeners.ts):
  // take them in that same order so a review and a proof never deadlock.
  const peek = await findMonitored(tx, clientId, id);
  if (peek?.remediationOwnershipRequestId)
    await lockOwnershipInTx(tx, clientId, peek.remediationOwnershipRequestId);
  const row = await findMonitored(tx, clientId, id, true);
  if (!row) throw notFound(MonitoringMessages.notFound);
  return row;
}

/**
 * The allowlist entries of a cleared match: per hit, the screened party (its name with its
 * identifier) and the hit itself (list, entry, version).
 */
function clearedParties(row: MonitoredTransactionRow) {
  const cp = row.counterparty as { name: string; account_identifier?: string; wallet?: { address: string } };
  const cpKey = nameKey(cp.name);
  return (row.sanctionsMatches as unknown as SanctionsMatch[]).map((m) => {
    // The sandbox list's hits have no screened_name: their matched name is the party's.
    const key = nameKey(m.screened_name ?? m.matched_name);
    return {
      nameKey: key,
      identifier: key === cpKey ? (cp.account_identifier ?? cp.wallet?.address ?? '') : row.subjectKey,
      list: m.list,
      entryId: m.entry_id ?? '',
      listVersion: m.list_version ?? null,
    };
  });
}

export async function reviewTransaction(deps: Deps, auth: ClientAuth, id: string, input: ReviewInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'transaction_monitoring');
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const cur = await lockRow(tx, auth.clientId, id);
    const from = cur.decision;
    const transition = decideReview(from, input.decision);
    if (input.decision === 'APPROVED' && cur.sanctionsHit && !input.clear_sanctions_match)
      throw badRequest(MonitoringMessages.clearSanctions);
    let extra: Partial<MonitoredTransactionInsert> = {};
    if (issuesRemediation(input.decision)) {
      const type = input.remediation_type;
      if (!type)
        throw invalidField(
          ['body', 'remediation_type'],
          'remediation_type is required with AWAITING_USER',
          'missing',
        );
      const blocker = remediationBlocker(type, subjectOfRow(cur));
      if (blocker) throw invalidField(['body', 'remediation_type'], blocker);
      if (type === 'identity_reverification' && !(await findClient(tx, auth.clientId))?.kycLinksEnabled)
        throw forbidden(M.kycLinksDisabled);
      const policy = policyView(await latestPolicy(tx, auth.clientId));
      extra = await issueRemediationInTx(
        tx,
        deps,
        now,
        {
          clientId: auth.clientId,
          clientReference: cur.clientReference,
          type,
          ttlHours: policy.remediation_ttl_hours,
        },
        subjectOfRow(cur),
      );
    } else if (from === 'AWAITING_USER') {
      // The remediation link is revoked, with the ownership request it opened.
      extra = { remediationRevokedAt: now };
      await revokeRemediationInTx(tx, cur, { now, events: deps.events });
    }
    const cleared = input.decision === 'APPROVED' && cur.sanctionsHit && input.clear_sanctions_match === true;
    if (cleared)
      await addToAllowlist(
        tx,
        clearedParties(cur).map((p) => ({
          clientId: auth.clientId,
          ...p,
          monitoredTransactionId: cur.id,
          createdByAccountId: auth.accountId,
          createdAt: now,
        })),
      );
    await insertReview(tx, {
      clientId: auth.clientId,
      monitoredTransactionId: cur.id,
      decision: input.decision,
      previousDecision: from,
      note: input.note,
      remediationType: issuesRemediation(input.decision) ? (input.remediation_type ?? null) : null,
      clearedSanctionsMatch: cleared,
      actorType: auth.actorType,
      actorAccountId: auth.accountId,
      reviewedAt: now,
    });
    const moved = await moveDecision(tx, cur, transition, {
      now,
      publicUrl: deps.config.publicUrl,
      reason: `Review: ${input.note}`.slice(0, 500),
      extra,
    });
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'monitoring.decision_reviewed',
      at: now,
      target: target(cur),
      changes: { decision: { from, to: moved.decision } },
      metadata: {
        note: input.note,
        cleared_sanctions_match: cleared,
        remediation_type: moved.remediationType,
      },
    });
    return moved;
  });
  return viewOf(deps, await issueVerificationLink(deps, row));
}

/** A remediation link's row, or the page's 404 (unknown) / 410 (expired, used or revoked). */
export async function openRemediation(
  deps: Pick<Deps, 'db' | 'clock'>,
  db: DbOrTx,
  token: string,
  lock = false,
) {
  const row = await findByToken(db, token, lock);
  if (!row) throw notFound(MonitoringMessages.remediationNotFound);
  const expired =
    row.remediationStatus === 'expired' ||
    (row.remediationExpiresAt !== null && row.remediationExpiresAt.getTime() <= deps.clock.now().getTime());
  if (
    row.remediationRevokedAt ||
    row.remediationStatus !== 'pending' ||
    expired ||
    row.decision !== 'AWAITING_USER'
  )
    throw new AppError(410, expired ? 'This link has expired' : 'This link is no longer valid');
  return row;
}

/** When and where a move happens: listeners have no deps, only their transaction's time. */
export interface MoveAt {
  now: Date;
  publicUrl: string;
}
const at = (deps: Pick<D, 'clock' | 'config'>): MoveAt => ({
  now: deps.clock.now(),
  publicUrl: deps.config.publicUrl,
});

/** The remediation is submitted (the page, or the verification/ownership outcome): IN_REVIEW. */
export async function submitRow(
  when: MoveAt,
  tx: DbOrTx,
  cur: MonitoredTransactionRow,
  answers: Record<string, unknown>,
) {
  const now = when.now;
  const transition = decideRemediationSubmit(cur.decision, cur.remediationStatus);
  const moved = await moveDecision(tx, cur, transition, {
    now,
    publicUrl: when.publicUrl,
    reason: 'Remediation submitted',
    extra: { remediationStatus: 'submitted', remediationSubmittedAt: now, remediationAnswers: answers },
  });
  await recordActivity(tx, {
    clientId: cur.clientId,
    action: 'monitoring.remediation_submitted',
    at: now,
    target: target(cur),
    changes: { decision: { from: cur.decision, to: moved.decision } },
    metadata: { remediation_type: cur.remediationType },
    actor: { type: 'system', accountId: null, credentialId: null },
  });
  return moved;
}

/** The end user submits the hosted remediation page (a source_of_funds document is stored with it). */
export async function submitRemediation(
  deps: D,
  token: string,
  answers: Record<string, unknown>,
  document: RemediationDocument | null = null,
) {
  return deps.db.transaction(async (tx) => {
    const cur = await openRemediation(deps, tx, token, true);
    const when = at(deps);
    const doc = document ? await storeRemediationDocument(tx, cur, document, when.now) : null;
    return submitRow(when, tx, cur, doc ? { ...answers, document: doc } : answers);
  });
}

/** The TTL elapsed (or the ownership request expired): the policy's on_remediation_expiry. */
export async function expireRow(when: MoveAt, tx: DbOrTx, cur: MonitoredTransactionRow) {
  const now = when.now;
  const policy = policyView(await latestPolicy(tx, cur.clientId));
  const transition = decideRemediationExpiry(
    cur.decision,
    cur.remediationStatus,
    policy.on_remediation_expiry,
  );
  const moved = await moveDecision(tx, cur, transition, {
    now,
    publicUrl: when.publicUrl,
    reason: 'Remediation expired',
    extra: { remediationStatus: 'expired' },
  });
  await recordActivity(tx, {
    clientId: cur.clientId,
    action: 'monitoring.remediation_expired',
    at: now,
    target: target(cur),
    changes: { decision: { from: cur.decision, to: moved.decision } },
    metadata: { on_remediation_expiry: policy.on_remediation_expiry },
    actor: { type: 'system', accountId: null, credentialId: null },
  });
  return moved;
}

/**
 * A pending remediation past its TTL moves to the policy's on_remediation_expiry (the handler of
 * remediationExpiryTimer below): re-read under lock, it acts only while the remediation is still
 * pending, AWAITING_USER and due; true when it acted.
 */
export async function expireRemediationIfDue(deps: D, clientId: string, id: string): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const cur = await lockRow(tx, clientId, id).catch(() => null);
    const when = at(deps);
    if (
      cur?.decision !== 'AWAITING_USER' ||
      cur.remediationStatus !== 'pending' ||
      !cur.remediationExpiresAt ||
      cur.remediationExpiresAt > when.now
    )
      return false;
    await expireRow(when, tx, cur);
    return true;
  });
}

/** The remediation expiry timer (set by every decision change, monitoring.transitions.ts). */
export const remediationExpiryTimer = defineTimer<{ monitoredTransactionId: string; clientId: string }>({
  ...REMEDIATION_EXPIRY,
  label: 'Remediation expiry',
  backfill: () => sql`select 'monitored:' || id::text as key,
                       jsonb_build_object('monitoredTransactionId', id::text, 'clientId', client_id::text) as payload,
                       client_id, remediation_expires_at as run_at
                  from monitored_transactions
                 where decision = 'AWAITING_USER' and remediation_status = 'pending'
                   and remediation_expires_at is not null`,
  fire: (deps, p) => expireRemediationIfDue(deps, p.clientId, p.monitoredTransactionId),
});

/** Runs the due remediation expiry timers now (tests, the CLI); returns how many expired. */
export async function expireDueRemediations(deps: Deps): Promise<number> {
  return runDueTimers(deps, [remediationExpiryTimer]);
}

/** POST /sandbox/monitoring/transactions/{id}/simulate (404 in production). */
export async function simulateRemediation(
  deps: D,
  auth: ClientAuth,
  id: string,
  action: 'remediation_submitted' | 'remediation_expired',
) {
  if (deps.config.environment !== 'sandbox') throw notFound(M.notFound);
  const row = await deps.db.transaction(async (tx) => {
    const cur = await lockRow(tx, auth.clientId, id);
    return action === 'remediation_submitted'
      ? submitRow(at(deps), tx, cur, { simulated: 'true' })
      : expireRow(at(deps), tx, cur);
  });
  return viewOf(deps, row);
}
