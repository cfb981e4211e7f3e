/**
 * Persists what monitoring.machine.ts decides, in the caller's transaction: the compare-and-set
 * update, `monitoring.transaction.status_changed` (exactly the spec's fields) and the notifications
 * of IN_REVIEW and AWAITING_USER. Nothing else writes monitored_transactions.decision.
 */
import type { DbOrTx } from '../../db/client';
import { type MonitoredTransactionInsert, monitoredTransactions } from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import { cancelTimer, setTimer, timerRef } from '../../platform/jobs/index';
import { machineTable, transition } from '../../platform/machine';
import { newId, randomToken } from '../../shared/ids';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import { type Decision, type DecisionTransition, decisionMachine } from './monitoring.machine';
import { MonitoringMessages } from './monitoring.messages';
import type { MonitoredTransactionRow } from './monitoring.repo';
import { remediationUrl } from './monitoring.view';
import type { RemediationType } from './rules.policy';

/** A fresh remediation link (32 random bytes, one purpose) that expires after the policy's TTL. */
export function issueRemediation(
  type: RemediationType,
  now: Date,
  ttlHours: number,
): Partial<MonitoredTransactionInsert> {
  return {
    remediationType: type,
    remediationStatus: 'pending',
    remediationToken: randomToken(32),
    remediationExpiresAt: new Date(now.getTime() + ttlHours * 3_600_000),
    remediationSubmittedAt: null,
    remediationRevokedAt: null,
    remediationAnswers: null,
  };
}

/**
 * The expiry timer of a pending remediation (monitoring.workers.ts handles it): set to
 * remediation_expires_at while the transaction is AWAITING_USER with a pending remediation, removed
 * when it leaves that state first. Kept in step by every decision change (emitDecisionChanged).
 */
export const REMEDIATION_EXPIRY = timerRef<{ monitoredTransactionId: string; clientId: string }>({
  kind: 'monitoring.remediation_expiry',
  keyOf: (p) => `monitored:${p.monitoredTransactionId}`,
});

async function syncRemediationTimer(tx: DbOrTx, row: MonitoredTransactionRow, previous: string, now: Date) {
  const timer = { monitoredTransactionId: row.id, clientId: row.clientId };
  if (row.decision === 'AWAITING_USER' && row.remediationStatus === 'pending' && row.remediationExpiresAt)
    await setTimer(tx, { now: () => now }, REMEDIATION_EXPIRY, {
      payload: timer,
      runAt: row.remediationExpiresAt,
      clientId: row.clientId,
    });
  else if (previous === 'AWAITING_USER') await cancelTimer(tx, REMEDIATION_EXPIRY, timer);
}

/** The event of a decision change; `previous` is "NONE" for the first decision. */
export async function emitDecisionChanged(
  tx: DbOrTx,
  row: MonitoredTransactionRow,
  previous: Decision | 'NONE',
  now: Date,
  publicUrl: string,
) {
  await emitEvent(tx, {
    clientId: row.clientId,
    type: 'monitoring.transaction.status_changed',
    data: {
      monitored_transaction_id: row.id,
      client_reference: row.clientReference,
      previous_decision: previous,
      decision: row.decision,
      decision_reason: row.decisionReason,
      sanctions_hit: row.sanctionsHit,
      remediation_url: remediationUrl(publicUrl, row),
      remediation_status: row.remediationStatus,
    },
    occurredAt: now,
    dedupKey: `monitoring:${row.id}:decision:${newId()}`,
  });
  await notifyDecision(tx, row, now);
  await syncRemediationTimer(tx, row, previous, now);
}

/** IN_REVIEW and AWAITING_USER go to owner and operations. */
async function notifyDecision(tx: DbOrTx, row: MonitoredTransactionRow, now: Date) {
  if (row.decision !== 'IN_REVIEW' && row.decision !== 'AWAITING_USER') return;
  await notify(tx, {
    clientId: row.clientId,
    category: 'monitoring',
    severity: 'warning',
    title:
      row.decision === 'IN_REVIEW'
        ? `Transaction ${row.clientReference} needs a review`
        : `Transaction ${row.clientReference} is waiting for the customer`,
    body: row.decisionReason ?? row.decision,
    item: { type: 'monitored_transaction', id: row.id },
    audience: { roles: OWNER_AND_OPERATIONS },
    at: now,
  });
}

const decisionTable = machineTable(decisionMachine, monitoredTransactions, {
  status: 'decision',
  conflict: MonitoringMessages.changedMeanwhile,
});

/** Applies one row of the decision table (the caller holds the row lock) with its event. */
export function moveDecision(
  tx: DbOrTx,
  row: MonitoredTransactionRow,
  trigger: DecisionTransition,
  ctx: { now: Date; publicUrl: string; reason: string | null; extra?: Partial<MonitoredTransactionInsert> },
): Promise<MonitoredTransactionRow> {
  return transition(tx, decisionTable, row, trigger, {
    set: { ...ctx.extra, decisionReason: ctx.reason, updatedAt: ctx.now },
    event: (updated, { from }) => emitDecisionChanged(tx, updated, from, ctx.now, ctx.publicUrl),
  });
}
