/**
 * The Token.io worker (SVC_TOKENIO_RECONCILE_POLL_MS): reads non-final payments whose last news is
 * older than SVC_TOKENIO_RECONCILE_AFTER_SECONDS (with backoff up to the max interval), follows
 * Token.io's Sub-TPP reviews, reads pending VRP consents, and registers our webhook URL once when
 * SVC_TOKENIO_REGISTER_WEBHOOK is on. Token.io says a final status can take time and notifications
 * can be missed; this is what makes every payment end.
 */
import { and, eq, gt, inArray, isNotNull, lte } from 'drizzle-orm';
import { recurringPayments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { TokenioBank } from '../../providers/bank/tokenio/bank';
import { addSeconds } from '../../shared/clock';
import { loopWorker, type Worker } from '../../workers/loop';
import { followNetworkReviews, rereadActivatedSubTpps } from '../opcos/opco-network.service';
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

export function createTokenioWorker(deps: Deps): Worker | null {
  const cfg = deps.config.tokenio;
  const bank = deps.providers.bank;
  if (!cfg || !(bank instanceof TokenioBank)) return null;
  let webhookRegistered = !cfg.registerWebhook;
  let mandatesReadAt = 0;
  // In memory: a restart reads every consent once more, which is only safer.
  let consentsRereadAt = 0;
  let subTppsRereadAt = 0;
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
      if (now - consentsRereadAt >= cfg.consentRereadSeconds * 1000) {
        consentsRereadAt = now;
        await rereadActiveMandates(deps);
      }
      // Activated Sub-TPPs, read again once per SVC_TOKENIO_SUBTPP_REREAD_SECONDS (Token.io may
      // deactivate one later, and says so by no webhook).
      if (now - subTppsRereadAt >= cfg.subTppRereadSeconds * 1000) {
        subTppsRereadAt = now;
        await rereadActivatedSubTpps(deps);
      }
      return did;
    },
    deps.log,
  );
}
