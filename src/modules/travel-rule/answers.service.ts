/**
 * A counterparty's answer (accepted, rejected, repair, expired) to one of our outbound transfers,
 * whichever way it came: on the network's notification route, or in the reply to our own delivery
 * (TRP may resolve an inquiry at once). An answer can arrive before we committed the delivery (the
 * transfer still `pending`, its send in flight): it is kept in a job and applied once the transfer
 * has moved on, instead of being refused and lost. An approval of another address than the
 * transfer's is refused (rejected), and the beneficiary VASP is sent a cancel for it.
 */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { enqueueJob } from '../../platform/jobs/index';
import type { TravelRuleNotification } from '../../providers/travel-rule/port';
import { type Chain, normalizeAddress } from '../../shared/chain-addresses';
import { OTHER_ADDRESS_CANCEL_REASON, oweCounterpartyMessage } from './counterparty-messages.service';
import { moveTransfer, type Trigger } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import { findTransfer } from './travel-rule.repo';

type D = Pick<Deps, 'db' | 'clock' | 'log'>;

export type Answer = Exclude<
  TravelRuleNotification,
  { type: 'transfer.inbound' | 'transfer.completed' | 'transfer.canceled' }
>;

const TRIGGER: Record<Answer['type'], Trigger> = {
  'transfer.accepted': 'counterparty_accepted',
  'transfer.rejected': 'counterparty_rejected',
  'transfer.repair_requested': 'counterparty_repair',
  'transfer.expired': 'expire',
};

/** The reason kept when a beneficiary VASP approves paying another address than the transfer's. */
export const OTHER_ADDRESS_REASON =
  'The beneficiary VASP approved a different address than the counterparty wallet';

export const APPLY_ANSWER_JOB = 'travel_rule.apply_answer';

/** Same address on the chain (normalized where the chain has a canonical form). */
function sameAddress(chain: string, a: string, b: string) {
  const norm = (x: string) => {
    try {
      return normalizeAddress(chain as Chain, x);
    } catch {
      return x;
    }
  };
  return norm(a) === norm(b);
}

/**
 * Applies `n` in `tx`. On a transfer still `pending` (our delivery not yet committed) it is
 * 'pending': kept for later (the job `travel_rule.apply_answer`) when `defer`, else left to the caller.
 */
export async function applyAnswerIn(
  tx: DbOrTx,
  deps: D,
  n: Answer,
  defer: boolean,
): Promise<boolean | 'pending'> {
  const t = await findTransfer(tx, null, n.reference, true);
  if (t?.direction !== 'outbound' || n.revision <= t.lastRevision) return false;
  if (t.status === 'pending') {
    if (defer)
      await enqueueJob(
        tx,
        deps.clock,
        { kind: APPLY_ANSWER_JOB, maxAttempts: APPLY_ANSWER_ATTEMPTS },
        {
          payload: { answer: n },
          dedupeKey: `${n.reference}:${n.revision}`,
          clientId: t.clientId,
          runAt: new Date(deps.clock.now().getTime() + 2000),
        },
      );
    return 'pending';
  }
  // An approval of another address is no approval of this transfer: money must not go elsewhere.
  const otherAddress =
    n.type === 'transfer.accepted' &&
    n.approvedAddress != null &&
    !sameAddress(t.chain, n.approvedAddress, t.counterpartyAddress);
  const trigger = otherAddress ? 'counterparty_rejected' : TRIGGER[n.type];
  const set = otherAddress
    ? { statusReason: OTHER_ADDRESS_REASON }
    : n.type === 'transfer.repair_requested'
      ? { repairFields: n.repairFields ?? [], statusReason: 'The counterparty asks for corrections' }
      : n.type === 'transfer.rejected'
        ? { statusReason: n.reason ?? 'Rejected by the counterparty' }
        : n.type === 'transfer.expired'
          ? { statusReason: TravelRuleMessages.expired }
          : { statusReason: null };
  const callback = n.type === 'transfer.accepted' ? (n.counterpartyCallback ?? null) : null;
  const moved = await moveTransfer(tx, t, trigger, {
    now: deps.clock.now(),
    set: { ...set, lastRevision: n.revision, ...(callback ? { counterpartyCallback: callback } : {}) },
  });
  // The beneficiary VASP holds an approval we refuse: it is told the transfer is off (TRP's
  // `canceled` on the approval's confirmation callback), by a job written with the move.
  if (moved && otherAddress && callback)
    await oweCounterpartyMessage(tx, deps.clock, moved, 'canceled', OTHER_ADDRESS_CANCEL_REASON);
  return moved !== null;
}

export const APPLY_ANSWER_ATTEMPTS = 6;

/** A counterparty's answer to one of our outbound transfers (kept for later while it is pending). */
export async function applyAnswer(deps: D, n: Answer): Promise<boolean> {
  const r = await deps.db.transaction((tx) => applyAnswerIn(tx, deps, n, true));
  // Taken: it is applied once the delivery is committed.
  return r === 'pending' ? true : r;
}
