/**
 * Applies a named transition of the opco machine: checks it against the table, persists it as a
 * compare-and-set update and emits `opco.status_changed` in the same transaction.
 */
import type { DbOrTx } from '../../db/client';
import { emitEvent } from '../../outbox/emit';
import { conflict } from '../../shared/errors';
import { newId } from '../../shared/ids';
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
  return row;
}
