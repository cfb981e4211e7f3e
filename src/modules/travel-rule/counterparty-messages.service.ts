/**
 * Messages a transfer owes its counterparty VASP after a change of ours (docs/vendors/trp.md,
 * "Messages owed to the counterparty"):
 * - outbound: the transaction id once it is reported (`txid`, TRP's transfer confirmation), and the
 *   call-off (`canceled`) when the client cancels or when we refuse the beneficiary's approval;
 * - inbound: our answer to the originator VASP (`approved` or `rejected`: the client's review, a
 *   cancel, a transfer left unreviewed until it expired).
 * Each is the job `travel_rule.counterparty_message`, written in the transaction of the change that
 * owes it (one per transfer and message: dedupe key `<transfer>:<message>`), its first attempt run
 * at once after the commit where a request made the change. A counterparty that cannot take it now
 * (down, timeout, 5xx, 429, breaker open) gets it again after the job's back-off; a refusal (another
 * 4xx) stops it at once. A message given up on is logged and recorded on the transfer: an activity
 * entry `travel_rule_transfer.counterparty_message_failed` (outcome failure) and a notification to
 * owner and operations. TRP recognises a retry by its stable request-identifier (`<transfer>:txid`, …).
 */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { enqueueJobId, PermanentJobError } from '../../platform/jobs/index';
import { TravelRuleProviderError } from '../../providers/travel-rule/port';
import type { Clock } from '../../shared/clock';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import type { TransferRow } from './travel-rule.machine';
import { findTransfer } from './travel-rule.repo';

export const COUNTERPARTY_MESSAGE_JOB = 'travel_rule.counterparty_message';
export const COUNTERPARTY_MESSAGE_ATTEMPTS = 8;
/** Waits before each further attempt (the last repeats): about 7.7 hours from the first to the last. */
export const COUNTERPARTY_MESSAGE_BACKOFF_SECONDS = [30, 120, 600, 1800, 3600, 10800] as const;

export type CounterpartyMessage = 'txid' | 'canceled' | 'approved' | 'rejected';

export type CounterpartyMessagePayload = {
  transferId: string;
  clientId: string;
  message: CounterpartyMessage;
  /** The reason sent with `rejected` or `canceled` (null: the network's default wording). */
  reason: string | null;
};

/** What the originator VASP is told when its inbound transfer expired unreviewed here. */
export const REVIEW_EXPIRED_REASON = 'Not reviewed by the beneficiary VASP in time';
/** What the beneficiary VASP is told when we refuse its approval of another address. */
export const OTHER_ADDRESS_CANCEL_REASON =
  'Canceled by the originator VASP: the approved address is not the counterparty wallet';

/** The activity action recorded when a message is given up on. */
export const MESSAGE_FAILED_ACTION = 'travel_rule_transfer.counterparty_message_failed';

/**
 * Writes the job owing `message` for `t` in the caller's transaction; returns its id (for the first
 * attempt at once after the commit), or null when that message is already owed.
 */
export function oweCounterpartyMessage(
  tx: DbOrTx,
  clock: Clock,
  t: Pick<TransferRow, 'id' | 'clientId'>,
  message: CounterpartyMessage,
  reason: string | null = null,
): Promise<string | null> {
  return enqueueJobId<CounterpartyMessagePayload>(
    tx,
    clock,
    { kind: COUNTERPARTY_MESSAGE_JOB, maxAttempts: COUNTERPARTY_MESSAGE_ATTEMPTS },
    {
      payload: { transferId: t.id, clientId: t.clientId, message, reason },
      dedupeKey: `${t.id}:${message}`,
      clientId: t.clientId,
    },
  );
}

/**
 * Sends the message from the transfer as it is now (the callback and hash it stores). A refusal by
 * the counterparty is a PermanentJobError (no retry); an outage is thrown as it is (retried).
 */
export async function sendCounterpartyMessage(
  deps: Pick<Deps, 'db' | 'providers'>,
  p: CounterpartyMessagePayload,
): Promise<void> {
  const t = await findTransfer(deps.db, p.clientId, p.transferId);
  if (!t) throw new PermanentJobError('the transfer no longer exists');
  const net = deps.providers.travelRule;
  try {
    switch (p.message) {
      case 'txid':
        if (net.confirm && t.counterpartyCallback && t.txHash)
          await net.confirm(t.id, t.counterpartyCallback, t.txHash);
        return;
      case 'canceled':
        if (t.beneficiaryVasp)
          await net.cancel(t.id, t.beneficiaryVasp.vasp_id, t.counterpartyCallback, p.reason);
        return;
      case 'approved':
        // An approval the client called off meanwhile is not sent (its `rejected` is owed instead).
        if (t.networkRef && (t.status === 'accepted' || t.status === 'completed'))
          await net.respond(t.networkRef, 'accepted', null, {
            transferId: t.id,
            address: t.counterpartyAddress,
          });
        return;
      case 'rejected':
        if (t.networkRef) await net.respond(t.networkRef, 'rejected', p.reason);
        return;
    }
  } catch (err) {
    if (err instanceof TravelRuleProviderError && !err.retryable) throw new PermanentJobError(err.message);
    throw err;
  }
}

const WHAT: Record<CounterpartyMessage, string> = {
  txid: 'transaction confirmation',
  canceled: 'cancellation',
  approved: 'approval',
  rejected: 'rejection',
};

/** A message given up on (refused, or not taken after the last attempt): logged and recorded on the transfer. */
export async function recordMessageGivenUp(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  p: CounterpartyMessagePayload,
  error: string,
): Promise<void> {
  deps.log.error(
    { transferId: p.transferId, message: p.message, error },
    'travel-rule message to the counterparty VASP gave up',
  );
  await deps.db.transaction(async (tx) => {
    const t = await findTransfer(tx, p.clientId, p.transferId);
    if (!t) return;
    const now = deps.clock.now();
    const label = `${t.clientReference ?? t.id} (${t.amount} ${t.asset})`;
    await recordActivity(tx, {
      clientId: t.clientId,
      action: MESSAGE_FAILED_ACTION,
      at: now,
      outcome: 'failure',
      target: { type: 'travel_rule_transfer', id: t.id, label },
      metadata: { direction: t.direction, status: t.status, message: p.message, error },
    });
    await notify(tx, {
      clientId: t.clientId,
      category: 'travel_rule',
      severity: 'warning',
      title: 'Travel-rule message to the counterparty VASP failed',
      body: `${label}: the ${WHAT[p.message]} could not be delivered (${error})`,
      item: { type: 'travel_rule_transfer', id: t.id },
      audience: { roles: OWNER_AND_OPERATIONS },
      at: now,
    });
  });
}
