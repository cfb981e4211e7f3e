/**
 * The travel-rule response deadline as a timer (docs/platform.md, "Timers"): a transfer awaiting an
 * answer (`awaiting_counterparty`, `needs_repair`, `awaiting_review`) gets the timer
 * `travel_rule.transfer_expiry` at its `expires_at`, written in the transaction that sets the
 * deadline (the delivery or repair move, the inbound transfer's insert). The handler re-reads the
 * transfer under lock: still awaiting and past its deadline, it expires (and the originator VASP of
 * an inbound transfer is sent a rejection, a job written with the move); a deadline moved later moves
 * the timer; anything else is a no-op. A move out of the awaiting statuses (an answer, a review, a
 * cancel, the expiry itself) removes the pending timer in its transaction (travel-rule.machine.ts);
 * the no-op stays for timers left by a release before that, and for one already running when the
 * move happened. Transfers of the previous release (a deadline, no timer) get theirs from the backfill.
 */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { defineTimer, runDueTimers, setTimer } from '../../platform/jobs/index';
import { oweCounterpartyMessage, REVIEW_EXPIRED_REASON } from './counterparty-messages.service';
import { moveTransfer, TRANSFER_EXPIRY, type TransferRow } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import { findTransfer } from './travel-rule.repo';

type Payload = { transferId: string; clientId: string };

export { TRANSFER_EXPIRY };

/** The statuses that wait for an answer until `expires_at`. */
const AWAITING = sql`('awaiting_counterparty', 'needs_repair', 'awaiting_review')`;

export const transferExpiryTimer = defineTimer<Payload>({
  ...TRANSFER_EXPIRY,
  label: 'Travel-rule transfer expiry',
  backfill: () => sql`
    select 'travel-rule-transfer:' || id::text as key,
           jsonb_build_object('transferId', id::text, 'clientId', client_id::text) as payload,
           client_id, expires_at as run_at
      from travel_rule_transfers where status in ${AWAITING} and expires_at is not null`,
  async fire(deps, { transferId, clientId }) {
    return deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const res = await tx.execute(sql`
        select id from travel_rule_transfers
         where id = ${transferId}::uuid and client_id = ${clientId}::uuid and status in ${AWAITING}
           and expires_at is not null
         for update`);
      if (rowsOf(res).length === 0) return false;
      const t = (await findTransfer(tx, clientId, transferId))!;
      if (t.expiresAt! > now) {
        // The deadline was moved later (a repair re-sent the data): the timer follows it.
        await setTimer(tx, deps.clock, TRANSFER_EXPIRY, {
          payload: { transferId, clientId },
          runAt: t.expiresAt!,
          clientId,
        });
        return false;
      }
      return (await expireTransfer(tx, deps, t)) !== null;
    });
  },
});

/**
 * Expires a transfer (locked by the caller) whose deadline passed, or, for the sandbox's simulate
 * on an inbound transfer, is taken as passed: outbound, the counterparty did not answer; inbound,
 * the client did not review it, and the originator VASP is owed a rejection (a job written with the
 * move). Returns the moved transfer, or null when its status does not allow expiry.
 */
export async function expireTransfer(tx: DbOrTx, deps: Pick<Deps, 'clock'>, t: TransferRow) {
  const moved = await moveTransfer(tx, t, 'expire', {
    now: deps.clock.now(),
    set: {
      statusReason: t.direction === 'inbound' ? TravelRuleMessages.reviewExpired : TravelRuleMessages.expired,
    },
  });
  if (moved?.direction === 'inbound' && moved.networkRef)
    await oweCounterpartyMessage(tx, deps.clock, moved, 'rejected', REVIEW_EXPIRED_REASON);
  return moved ?? null;
}

/** Runs the due expiry timers now (tests, the CLI); returns how many transfers expired. */
export function expireDueTransfers(deps: Deps): Promise<number> {
  return runDueTimers(deps, [transferExpiryTimer]);
}
