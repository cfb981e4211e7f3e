/**
 * Persists what the two machines decide, in the caller's transaction: compare-and-set updates, the
 * `contract.request.status_changed` / `contract.participant.status_changed` events and the audit
 * trail. Nothing else writes a request's or participant's status.
 */
import type { DbOrTx } from '../../db/client';
import { emitEvent } from '../../outbox/emit';
import { conflict } from '../../shared/errors';
import { newId } from '../../shared/ids';
import {
  canMoveParticipant,
  type ParticipantStatus,
  type ParticipantTransition,
  participantTarget,
} from './participants.machine';
import {
  canMoveRequest,
  type RequestStatus,
  type RequestTransition,
  requestTarget,
} from './requests.machine';
import {
  addAudit,
  type ParticipantRow,
  type RequestRow,
  updateParticipantIfStatus,
  updateRequestIfStatus,
} from './requests.repo';

export type ContractActorType = 'client_user' | 'client_api' | 'service_internal' | null;
export interface ContractActor {
  actorType: ContractActorType;
  actorAccountId: string | null;
}
export const AUTOMATIC: ContractActor = { actorType: null, actorAccountId: null };

type RequestChanges = Partial<typeof import('../../db/schema/index').contractRequests.$inferInsert>;
type ParticipantChanges = Partial<typeof import('../../db/schema/index').contractParticipants.$inferInsert>;

function requestTimestamps(to: RequestStatus, now: Date): RequestChanges {
  switch (to) {
    case 'sent':
      return { sentAt: now };
    case 'completed':
      return { completedAt: now, nextReminderAt: null };
    case 'declined':
      return { declinedAt: now, nextReminderAt: null };
    case 'voided':
      return { voidedAt: now, nextReminderAt: null };
    case 'expired':
    case 'failed':
      return { nextReminderAt: null };
    default:
      return {};
  }
}

export async function emitRequestStatus(
  tx: DbOrTx,
  r: RequestRow,
  previous: RequestStatus | null,
  actor: ContractActor,
  now: Date,
) {
  await emitEvent(tx, {
    clientId: r.clientId,
    type: 'contract.request.status_changed',
    data: {
      contract_request_id: r.id,
      flow_id: r.flowId,
      template_ids: r.templateIds,
      title: r.title,
      external_reference: r.externalReference,
      previous_status: previous,
      current_status: r.status,
      status_reason: r.statusReason,
      actor_type: actor.actorType,
      actor_account_id: actor.actorAccountId,
    },
    occurredAt: now,
    dedupKey: `contract-request:${r.id}:${previous ?? 'none'}:${r.status}`,
  });
}

export async function moveRequest(
  tx: DbOrTx,
  r: RequestRow,
  t: RequestTransition,
  ctx: { now: Date; actor: ContractActor; extra?: RequestChanges },
): Promise<RequestRow> {
  const from = r.status as RequestStatus;
  if (!canMoveRequest(t, from)) throw new Error(`contract request transition ${t} not allowed from ${from}`);
  const to = requestTarget(t);
  const u = await updateRequestIfStatus(tx, r.id, from, {
    ...ctx.extra,
    ...requestTimestamps(to, ctx.now),
    status: to,
    updatedAt: ctx.now,
  });
  if (!u) throw conflict('Contract request was changed meanwhile, please retry');
  await emitRequestStatus(tx, u, from, ctx.actor, ctx.now);
  await addAudit(tx, { requestId: r.id, type: `request.${to}`, at: ctx.now });
  return u;
}

function participantTimestamps(to: ParticipantStatus, now: Date): ParticipantChanges {
  switch (to) {
    case 'sent':
      return { turnStartedAt: now };
    case 'viewed':
      return { viewedAt: now };
    case 'completed':
      return { completedAt: now };
    case 'declined':
      return { declinedAt: now };
    default:
      return {};
  }
}

export async function emitParticipantStatus(
  tx: DbOrTx,
  p: ParticipantRow,
  previous: ParticipantStatus | null,
  now: Date,
) {
  await emitEvent(tx, {
    clientId: p.clientId,
    type: 'contract.participant.status_changed',
    data: {
      contract_request_id: p.requestId,
      participant_id: p.id,
      role: p.role,
      kind: p.kind,
      name: p.name,
      email: p.email,
      user_id: p.userId,
      business_customer_id: p.businessCustomerId,
      signing_order: p.signingOrder,
      previous_status: previous,
      current_status: p.status,
      decline_reason: p.declineReason,
    },
    occurredAt: now,
    dedupKey: `contract-participant:${p.id}:${previous ?? 'none'}:${p.status}:${newId()}`,
  });
}

export async function moveParticipant(
  tx: DbOrTx,
  p: ParticipantRow,
  t: ParticipantTransition,
  ctx: { now: Date; extra?: ParticipantChanges; ip?: string | null; userAgent?: string | null },
): Promise<ParticipantRow> {
  const from = p.status as ParticipantStatus;
  if (!canMoveParticipant(t, from)) throw new Error(`participant transition ${t} not allowed from ${from}`);
  const to = participantTarget(t);
  const u = await updateParticipantIfStatus(tx, p.id, from, {
    ...participantTimestamps(to, ctx.now),
    ...ctx.extra,
    status: to,
    updatedAt: ctx.now,
  });
  if (!u) throw conflict('Participant was changed meanwhile, please retry');
  await emitParticipantStatus(tx, u, from, ctx.now);
  await addAudit(tx, {
    requestId: p.requestId,
    participantId: p.id,
    type: t === 'correct' ? 'participant.corrected' : `participant.${to}`,
    at: ctx.now,
    ip: ctx.ip,
    userAgent: ctx.userAgent,
  });
  return u;
}

/** Cancels every participant still open (decline by another, expiry, void). */
export async function cancelOpenParticipants(tx: DbOrTx, ps: ParticipantRow[], now: Date, exceptId?: string) {
  for (const p of ps)
    if (p.id !== exceptId && canMoveParticipant('cancel', p.status as ParticipantStatus))
      await moveParticipant(tx, p, 'cancel', { now });
}
