/**
 * Applies a named transition of the opco machine: checks it against the table, persists it as a
 * compare-and-set update and emits `opco.status_changed` in the same transaction.
 */

import type { DbOrTx } from '../../db/client';
import { emitEvent } from '../../outbox/emit';
import { conflict } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { recordActivity } from '../activity/activity.writer';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify';
import { assertCanApply, type OpcoStatus, type OpcoTransition } from './opcos.machine';
import { casOpcoStatus, type OpcoChanges, type OpcoRow } from './opcos.repo';

export const OPCO_CONFLICT = 'Opco status changed concurrently, please retry';

export interface TransitionOptions {
  now: Date;
  reason?: string | null;
  /** Extra columns set with the status (sub_tpp_id, activation_due_at, ...). */
  changes?: OpcoChanges;
}

export async function applyOpcoTransition(
  tx: DbOrTx,
  opco: OpcoRow,
  transition: OpcoTransition,
  opts: TransitionOptions,
): Promise<OpcoRow> {
  const from = opco.status as OpcoStatus;
  const to = assertCanApply(transition, from);
  const row = await casOpcoStatus(tx, opco.id, from, to, {
    statusReason: opts.reason ?? null,
    updatedAt: opts.now,
    ...opts.changes,
  });
  if (!row) throw conflict(OPCO_CONFLICT);
  await emitEvent(tx, {
    clientId: row.clientId,
    type: 'opco.status_changed',
    occurredAt: opts.now,
    dedupKey: `opco:${row.id}:${from}:${to}:${newId()}`,
    data: {
      opco_id: row.id,
      sub_tpp_id: row.subTppId,
      name: row.name,
      previous_opco_status: from,
      current_opco_status: to,
      opco_status_reason: row.statusReason,
    },
  });
  await recordActivity(tx, {
    clientId: row.clientId,
    action: ACTION_OF[transition],
    at: opts.now,
    target: { type: 'opco', id: row.id, label: row.name },
    changes: { status: { from, to } },
    metadata: { reason: row.statusReason, sub_tpp_id: row.subTppId },
  });
  if (to === 'activated' || to === 'rejected') {
    await notify(tx, {
      clientId: row.clientId,
      category: 'opcos',
      severity: to === 'activated' ? 'info' : 'warning',
      title: to === 'activated' ? `Opco ${row.name} activated` : `Opco ${row.name} rejected`,
      body:
        to === 'activated'
          ? `${row.name} is active (Sub-TPP ${row.subTppId ?? '-'}); its projects can take payments.`
          : `${row.name} was rejected${row.statusReason ? `: ${row.statusReason}` : '.'}`,
      item: { type: 'opco', id: row.id },
      audience: { roles: OWNER_AND_OPERATIONS },
      at: opts.now,
    });
  }
  return row;
}

const ACTION_OF: Record<OpcoTransition, string> = {
  submit_sandbox: 'opco.submitted',
  submit_production: 'opco.submitted',
  staff_approve_review: 'opco.approved',
  staff_activate: 'opco.activated',
  network_activate: 'opco.activated',
  network_reject: 'opco.rejected',
  staff_reject: 'opco.rejected',
  staff_deactivate: 'opco.deactivated',
};
