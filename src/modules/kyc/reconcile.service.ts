/**
 * Reconciliation: a provider's notifications can be missed (Sumsub resends a failed webhook only
 * four times over a day), so links whose result may still change and whose provider was last heard
 * from longer ago than the bound (SVC_SUMSUB_RECONCILE_AFTER_SECONDS) are re-read, oldest first.
 * Only for providers that ask for it (`reconcile`); the sandbox simulator always notifies.
 */
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { refreshSession } from './notifications.service';
import {
  findApprovedSessionsToRecheck,
  findSessionsToReconcile,
  isLatestLinkOfSubject,
  type SessionRow,
  updateSession,
} from './verification.repo';

/**
 * Re-reads a batch of links, each only when it is its subject's latest (an older link just moves to
 * the next cadence: the later one carries the provider's news); stops at the first provider failure
 * (the breaker and the next round take it from here). Returns how many links were re-read.
 */
async function rereadLatestLinks(
  deps: Deps,
  due: SessionRow[],
  options: Parameters<typeof refreshSession>[3],
  failure: string,
): Promise<number> {
  let done = 0;
  for (const session of due) {
    try {
      if (!(await isLatestLinkOfSubject(deps.db, session))) {
        await updateSession(deps.db, session.id, { updatedAt: deps.clock.now() });
        continue;
      }
      await refreshSession(deps, session, 'system', options);
      done++;
    } catch (err) {
      deps.log.warn({ err, verificationId: session.id }, failure);
      break;
    }
  }
  return done;
}

/** One batch; returns how many links were re-read (the worker loops while a batch is full). */
export async function reconcileVerifications(deps: Deps, limit = 20): Promise<number> {
  const policy = deps.providers.verification.reconcile;
  if (!policy) return 0;
  const bound = policy.afterSeconds;
  const due = await findSessionsToReconcile(deps.db, addSeconds(deps.clock.now(), -bound), limit);
  return rereadLatestLinks(deps, due, undefined, 'verification reconciliation failed');
}

/**
 * The re-check of approved subjects: Sumsub can reject an approved applicant later (an officer,
 * ongoing monitoring, a level moved by a workflow) and a lost webhook would leave the subject
 * approved. Each approved subject's latest link is re-read once per SVC_SUMSUB_RECHECK_APPROVED_SECONDS
 * (default daily; the session's updated_at is the clock), a bounded batch per round; a rejection or
 * reset at any level applies to it. Returns how many links were re-read.
 */
export async function recheckApprovedVerifications(deps: Deps, limit = 20): Promise<number> {
  const policy = deps.providers.verification.reconcile;
  if (!policy) return 0;
  const every = policy.recheckApprovedSeconds;
  const due = await findApprovedSessionsToRecheck(deps.db, addSeconds(deps.clock.now(), -every), limit);
  return rereadLatestLinks(deps, due, { latest: true }, 'approved verification re-check failed');
}
