/**
 * The network sweep, for a payment network with a reconcile part (`bank.reconcile`; Token.io:
 * SVC_TOKENIO_RECONCILE_*): reads non-final payments whose last news is older than its bound (with
 * backoff up to the max interval), payments held for review, the network's Sub-TPP reviews, pending
 * and authorized mandates and activated Sub-TPPs, each on the network's policy, and runs the
 * network's start-up call once (`reconcile.start`, e.g. registering our notification URL). Such a
 * network says a final status can take time and notifications can be missed; this is what makes
 * every payment end.
 */
import { and, eq, gt, inArray, isNotNull, lte } from 'drizzle-orm';
import { recurringPayments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { loopWorker, type Worker } from '../../workers/loop';
import { followNetworkReviews, rereadActivatedSubTpps } from '../opcos/opco-network.service';
import { syncMandate } from '../recurring/mandate-page.service';
import { readHeldPayments, reconcileDuePayments } from './network-sync.service';

/** Pending mandates whose last news is older than the bound, read at most every reconcile interval. */
async function readPendingMandates(deps: Deps, afterSeconds: number, batch = 20): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db
    .select()
    .from(recurringPayments)
    .where(
      and(
        eq(recurringPayments.status, 'pending_authorization'),
        isNotNull(recurringPayments.mandateRef),
        lte(recurringPayments.updatedAt, addSeconds(now, -afterSeconds)),
      ),
    )
    .orderBy(recurringPayments.updatedAt)
    .limit(batch);
  let moved = 0;
  for (const d of due) if (await syncMandate(deps, d)) moved++;
  return moved;
}

/**
 * Every authorized mandate's consent, read again (a payer can revoke a VRP consent in the banking
 * app; Token.io's notification for it is a hint we may miss): a revocation is applied before the
 * next run tries to charge. Pages through the mandates by id.
 */
export async function rereadActiveMandates(deps: Deps, page = 100): Promise<number> {
  let after = '00000000-0000-0000-0000-000000000000';
  let read = 0;
  for (;;) {
    const rows = await deps.db
      .select()
      .from(recurringPayments)
      .where(
        and(
          inArray(recurringPayments.status, ['active', 'paused']),
          eq(recurringPayments.mandateStatus, 'authorized'),
          isNotNull(recurringPayments.mandateRef),
          gt(recurringPayments.id, after),
        ),
      )
      .orderBy(recurringPayments.id)
      .limit(page);
    for (const d of rows) {
      await syncMandate(deps, d);
      read++;
    }
    if (rows.length < page) return read;
    after = rows.at(-1)!.id;
  }
}

export function createNetworkReconcileWorker(deps: Deps): Worker | null {
  const policy = deps.providers.bank.reconcile;
  if (!policy) return null;
  let started = !policy.start;
  let mandatesReadAt = 0;
  // In memory: a restart reads every consent once more, which is only safer.
  let consentsRereadAt = 0;
  let subTppsRereadAt = 0;
  return loopWorker(
    'network-reconcile',
    policy.pollMs,
    async () => {
      if (!started) {
        try {
          await policy.start?.();
          started = true;
        } catch (err) {
          deps.log.warn({ err }, 'payment network start-up call failed; retried on the next tick');
        }
      }
      let did = await reconcileDuePayments(deps, policy.payments);
      did += await readHeldPayments(deps, policy.review);
      did += await followNetworkReviews(deps);
      const now = deps.clock.now().getTime();
      if (now - mandatesReadAt >= policy.payments.intervalSeconds * 1000) {
        mandatesReadAt = now;
        await readPendingMandates(deps, policy.payments.afterSeconds);
      }
      if (now - consentsRereadAt >= policy.consentRereadSeconds * 1000) {
        consentsRereadAt = now;
        await rereadActiveMandates(deps);
      }
      // Activated Sub-TPPs, read again once per the network's re-read interval (the network may
      // deactivate one later, and say so by no notification).
      if (now - subTppsRereadAt >= policy.subTppRereadSeconds * 1000) {
        subTppsRereadAt = now;
        await rereadActivatedSubTpps(deps);
      }
      return did;
    },
    deps.log,
  );
}
