/**
 * Verification links that were never used expire: past expires_at the link is marked expired and,
 * when the subject has nothing else under way, its status falls back from `pending` to what its
 * records say (the latest deciding record, or `none`), with a kyc.status_changed /
 * kyb.status_changed event of source `system` in the same transaction.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { defineTimer, runDueTimers, setTimer, timerRef } from '../../platform/jobs/index';
import type { VerificationKind } from '../../providers/verification/port';
import type { Clock } from '../../shared/clock';
import { statusFromLatestRecord } from './kyc.machine';
import { changeBusiness, changeUser } from './subject-status.transitions';
import {
  findSession,
  hasOpenVerification,
  latestReportedRecord,
  lockBusiness,
  lockUser,
  markLinkExpired,
  type SessionRow,
} from './verification.repo';

/**
 * The expiry timer of a usable link: set to expires_at when the link becomes usable (`pending`),
 * in that transaction (verification.service.ts, and the sandbox page giving a link back). The
 * handler re-reads the link: submitted, expired or failed meanwhile, or not yet due, it does nothing.
 */
export const LINK_EXPIRY = timerRef<{ verificationId: string }>({
  kind: 'kyc.link_expiry',
  keyOf: (p) => `verification:${p.verificationId}`,
});

/** Sets the expiry timer of a link that just became usable (in the caller's transaction). */
export function setLinkExpiryTimer(tx: DbOrTx, clock: Clock, link: SessionRow): Promise<void> {
  return setTimer(tx, clock, LINK_EXPIRY, {
    payload: { verificationId: link.id },
    runAt: link.expiresAt,
    clientId: link.clientId,
  });
}

export const linkExpiryTimer = defineTimer<{ verificationId: string }>({
  ...LINK_EXPIRY,
  label: 'Verification link expiry',
  backfill:
    () => sql`select 'verification:' || id::text as key, jsonb_build_object('verificationId', id::text) as payload,
                       client_id, expires_at as run_at
                  from verification_sessions where status = 'pending'`,
  async fire(deps, { verificationId }) {
    const link = await findSession(deps.db, verificationId);
    if (link?.status !== 'pending' || link.expiresAt > deps.clock.now()) return false;
    return expireLink(deps, link);
  },
});

/** Runs the due link expiry timers now (tests, the CLI); returns how many links expired. */
export async function expireUnusedVerificationLinks(deps: Deps): Promise<number> {
  return runDueTimers(deps, [linkExpiryTimer]);
}

async function expireLink(deps: Deps, link: SessionRow): Promise<boolean> {
  const kind = link.kind as VerificationKind;
  const subjectId = (kind === 'kyc' ? link.userId : link.businessCustomerId)!;
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    // The subject's row lock first, as every other change of a subject's verification takes it.
    const subject =
      kind === 'kyc'
        ? await lockUser(tx, link.clientId, subjectId)
        : await lockBusiness(tx, link.clientId, subjectId);
    const marked = await markLinkExpired(tx, link.id, now);
    if (!marked || !subject) return false;
    if (subject.verificationMode === 'external_attestation') return true;
    const current = 'kycStatus' in subject ? subject.kycStatus : subject.kybStatus;
    if (current !== 'pending') return true;
    if (await hasOpenVerification(tx, kind, link.clientId, subjectId, now)) return true;
    const latest = await latestReportedRecord(tx, kind, link.clientId, subjectId, true);
    const status = statusFromLatestRecord(latest?.status ?? null);
    const ctx = {
      source: 'system' as const,
      occurredAt: link.expiresAt,
      now,
      dedupKey: `${kind}:${subjectId}:link-expired:${link.id}`,
    };
    if ('kycStatus' in subject) await changeUser(tx, subject, { status }, ctx);
    else await changeBusiness(tx, subject, { status }, ctx);
    return true;
  });
}
