/**
 * The Token.io worker (SVC_TOKENIO_RECONCILE_POLL_MS): reads non-final payments whose last news is
 * older than SVC_TOKENIO_RECONCILE_AFTER_SECONDS (with backoff up to the max interval), follows
 * Token.io's Sub-TPP reviews, reads pending VRP consents, and registers our webhook URL once when
 * SVC_TOKENIO_REGISTER_WEBHOOK is on. Token.io says a final status can take time and notifications
 * can be missed; this is what makes every payment end.
 */
import { and, eq, isNotNull, lte } from 'drizzle-orm';
import { recurringPayments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { TokenioBank } from '../../providers/bank/tokenio/bank';
import { addSeconds } from '../../shared/clock';
import { loopWorker, type Worker } from '../../workers/loop';
import { followNetworkReviews } from '../opcos/opco-network.service';
import { syncMandate } from '../recurring/mandate-page.service';
import { readHeldPayments, reconcileDuePayments } from './network-sync';
import { tokenioWebhookUrl } from './tokenio-hints.routes';

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

export function createTokenioWorker(deps: Deps): Worker | null {
  const cfg = deps.config.tokenio;
  const bank = deps.providers.bank;
  if (!cfg || !(bank instanceof TokenioBank)) return null;
  let webhookRegistered = !cfg.registerWebhook;
  let mandatesReadAt = 0;
  return loopWorker(
    'tokenio-reconcile',
    cfg.reconcile.pollMs,
    async () => {
      if (!webhookRegistered) {
        try {
          await bank.registerWebhook(tokenioWebhookUrl(deps));
          webhookRegistered = true;
          deps.log.info('Token.io webhook URL registered');
        } catch (err) {
          deps.log.warn({ err }, 'Token.io webhook registration failed; retried on the next tick');
        }
      }
      let did = await reconcileDuePayments(deps, cfg.reconcile);
      did += await readHeldPayments(deps, cfg.review);
      did += await followNetworkReviews(deps);
      const now = deps.clock.now().getTime();
      if (now - mandatesReadAt >= cfg.reconcile.intervalSeconds * 1000) {
        mandatesReadAt = now;
        await readPendingMandates(deps, cfg.reconcile.afterSeconds);
      }
      return did;
    },
    deps.log,
  );
}
