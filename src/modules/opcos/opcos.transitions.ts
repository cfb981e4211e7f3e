/**
 * Applies a named transition of the opco machine through the platform's `transition`: the table's
 * check, a compare-and-set update, then `opco.status_changed`, the activity entry and the
 * notifications in the same transaction.
 */

import type { DbOrTx } from '../../db/client';
import { opcos } from '../../db/schema/opcos';
import { emitEvent } from '../../outbox/emit';
import { machineTable, transition } from '../../platform/machine';
import { newId } from '../../shared/ids';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import { type OpcoTransition, opcoMachine } from './opcos.machine';
import type { OpcoChanges, OpcoRow } from './opcos.repo';

export const OPCO_CONFLICT = 'Opco status changed concurrently, please retry';

const opcoTable = machineTable(opcoMachine, opcos, { conflict: OPCO_CONFLICT });

export interface TransitionOptions {
  now: Date;
  reason?: string | null;
  /** Extra columns set with the status (sub_tpp_id, activation_due_at, ...). */
  changes?: OpcoChanges;
}

export function applyOpcoTransition(
  tx: DbOrTx,
  opco: OpcoRow,
  trigger: OpcoTransition,
  opts: TransitionOptions,
): Promise<OpcoRow> {
  return transition(tx, opcoTable, opco, trigger, {
    set: { statusReason: opts.reason ?? null, updatedAt: opts.now, ...opts.changes },
    event: (row, { from, to }) =>
      emitEvent(tx, {
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
      }),
    activity: (row, { from, to }) =>
      recordActivity(tx, {
        clientId: row.clientId,
        action: ACTION_OF[trigger],
        at: opts.now,
        target: { type: 'opco', id: row.id, label: row.name },
        changes: { status: { from, to } },
        metadata: { reason: row.statusReason, sub_tpp_id: row.subTppId },
      }),
    notify: async (row, { to }) => {
      if (trigger === 'network_deactivate') {
        await notify(tx, {
          clientId: row.clientId,
          category: 'opcos',
          severity: 'critical',
          title: `Opco ${row.name} deactivated by the payment network`,
          body: `${row.name} (Sub-TPP ${row.subTppId ?? '-'}) was deactivated by the payment network${row.statusReason ? `: ${row.statusReason}` : '.'} Its projects take no new payments; payments already under way go on.`,
          item: { type: 'opco', id: row.id },
          audience: { roles: OWNER_AND_OPERATIONS },
          at: opts.now,
        });
        return;
      }
      if (to !== 'activated' && to !== 'rejected') return;
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
    },
  });
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
  network_deactivate: 'opco.deactivated',
};
