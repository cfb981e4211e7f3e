/**
 * The travel rule's jobs: a dispatch tried again after its counterparty could not take it
 * (dispatch.ts, `sendOrRetry`), and an answer owed to an originator VASP whose inbound transfer we
 * could not take (no recipient here), sent after the request that brought it was answered.
 */
import { defineJob, PermanentJobError } from '../../platform/jobs/index';
import { type Answer, APPLY_ANSWER_ATTEMPTS, APPLY_ANSWER_JOB, applyAnswerIn } from './answers.service';
import { DISPATCH_JOB, sendOrRetry } from './dispatch';
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
 * An answer to an originator VASP (our review, or an unknown beneficiary refused) that could not
 * be delivered at once, or that is owed after the request bringing the transfer was answered.
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
