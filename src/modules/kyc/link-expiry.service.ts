/**
 * Verification links that were never used expire: past expires_at the link is marked expired and,
 * when the subject has nothing else under way, its status falls back from `pending` to what its
 * records say (the latest deciding record, or `none`), with a kyc.status_changed /
 * kyb.status_changed event of source `system` in the same transaction.
 */
import type { Deps } from '../../deps';
import type { VerificationKind } from '../../providers/verification/port';
import { statusFromLatestRecord } from './kyc.machine';
import { changeBusiness, changeUser } from './subject-status';
import {
  findDueUnusedLinks,
  hasOpenVerification,
  latestReportedRecord,
  lockBusiness,
  lockUser,
  markLinkExpired,
  type SessionRow,
} from './verification.repo';

/** One batch; returns how many links it expired (the worker loops while a batch is full). */
export async function expireUnusedVerificationLinks(deps: Deps, limit = 100): Promise<number> {
  const due = await findDueUnusedLinks(deps.db, deps.clock.now(), limit);
  let expired = 0;
  for (const link of due) if (await expireLink(deps, link)) expired++;
  return expired;
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
