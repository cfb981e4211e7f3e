/**
 * The travel rule's jobs: a dispatch tried again after its counterparty could not take it
 * (dispatch.service.ts, `sendOrRetry`), an answer owed to an originator VASP whose inbound transfer we
 * could not take (no recipient here), sent after the request that brought it was answered, and the
 * messages a transfer owes its counterparty after a change (counterparty-messages.service.ts).
 */
import type { Deps } from '../../deps';
import { defineJob, PermanentJobError } from '../../platform/jobs/index';
import { deliverDueSandboxTravelRule } from '../../providers/sandbox-delivery.timers';
import { type Answer, APPLY_ANSWER_ATTEMPTS, APPLY_ANSWER_JOB, applyAnswerIn } from './answers.service';
import {
  COUNTERPARTY_MESSAGE_ATTEMPTS,
  COUNTERPARTY_MESSAGE_BACKOFF_SECONDS,
  COUNTERPARTY_MESSAGE_JOB,
  type CounterpartyMessagePayload,
  recordMessageGivenUp,
  sendCounterpartyMessage,
} from './counterparty-messages.service';
import { DISPATCH_JOB, sendOrRetry } from './dispatch.service';
import { expireDueTransfers } from './expiry.service';
import { rescreenUnavailableTransfers } from './sanctions-rescreen.worker';
import { findTransfer } from './travel-rule.repo';

export const dispatchJob = defineJob<{
  transferId: string;
  clientId: string;
  vaspId: string;
  attempt: number;
}>({
  kind: DISPATCH_JOB,
  // Each retry is its own job (the waits are the network's); one run retries only a crash.
  maxAttempts: 3,
  async run(deps, { transferId, clientId, vaspId, attempt }) {
    const t = await findTransfer(deps.db, clientId, transferId);
    if (t?.status !== 'pending') return;
    const vasp = (await deps.providers.travelRule.directory()).find((v) => v.vasp_id === vaspId);
    if (!vasp) throw new PermanentJobError('the counterparty VASP left the directory');
    await sendOrRetry(deps, t, vasp, attempt);
  },
});

export const ANSWER_INBOUND_JOB = 'travel_rule.answer_inbound';

/**
 * An answer to an originator VASP for an inbound transfer we did not take (unknown beneficiary),
 * owed after the request bringing it was answered. (Answers to transfers we keep are
 * `travel_rule.counterparty_message`; jobs of a previous release that answered a review still run.)
 */
export const answerInboundJob = defineJob<{
  networkRef: string;
  answer: 'accepted' | 'rejected';
  reason: string | null;
  transferId: string | null;
  address: string | null;
}>({
  kind: ANSWER_INBOUND_JOB,
  maxAttempts: 6,
  backoffSeconds: [30, 120, 600, 1800, 3600],
  async run(deps, { networkRef, answer, reason, transferId, address }) {
    await deps.providers.travelRule.respond(
      networkRef,
      answer,
      reason,
      transferId && address ? { transferId, address } : undefined,
    );
  },
  async onDead(deps, { networkRef, transferId }, error) {
    deps.log.error(
      { transferId, error, hasRef: networkRef.length > 0 },
      'travel-rule answer to the originator VASP gave up',
    );
  },
});

/**
 * A counterparty's answer that arrived while our delivery to it was not yet committed (the transfer
 * still `pending`): applied once the transfer has moved on; tried again while it is still pending.
 */
export const applyAnswerJob = defineJob<{ answer: Answer }>({
  kind: APPLY_ANSWER_JOB,
  maxAttempts: APPLY_ANSWER_ATTEMPTS,
  backoffSeconds: [2, 10, 60, 300, 1800],
  async run(deps, { answer }) {
    const r = await deps.db.transaction((tx) => applyAnswerIn(tx, deps, answer, false));
    if (r === 'pending') throw new Error('the transfer is still pending');
  },
  async onDead(deps, { answer }, error) {
    deps.log.error(
      { transferId: answer.reference, type: answer.type, error },
      'travel-rule answer never applied: the transfer stayed pending',
    );
  },
});

/**
 * A message a transfer owes its counterparty VASP (txid, canceled, approved, rejected), written with
 * the change that owes it; retried while the counterparty cannot take it, given up on (and recorded
 * on the transfer) when it refuses it or after the last attempt.
 */
export const counterpartyMessageJob = defineJob<CounterpartyMessagePayload>({
  kind: COUNTERPARTY_MESSAGE_JOB,
  maxAttempts: COUNTERPARTY_MESSAGE_ATTEMPTS,
  backoffSeconds: COUNTERPARTY_MESSAGE_BACKOFF_SECONDS,
  run: (deps, payload) => sendCounterpartyMessage(deps, payload),
  onDead: (deps, payload, error) => recordMessageGivenUp(deps, payload, error),
});

/**
 * Runs at once what the service runs on its own schedule (tests): the due expiry timers, the
 * housekeeping re-screen of inbound transfers, and the sandbox network's due answers.
 */
export async function runDueTravelRuleTimers(deps: Deps): Promise<number> {
  let n = await expireDueTransfers(deps);
  n += await rescreenUnavailableTransfers(deps);
  if (deps.providers.travelRule.sandbox) n += await deliverDueSandboxTravelRule(deps);
  return n;
}
