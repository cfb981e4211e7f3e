/**
 * Persists what the two machines decide, in the caller's transaction: compare-and-set updates, the
 * `contract.request.status_changed` / `contract.participant.status_changed` events and the audit
 * trail. Nothing else writes a request's or participant's status.
 */
import type { DbOrTx } from '../../../db/client';
import { contractParticipants, contractRequests } from '../../../db/schema/contract-requests';
import { emitEvent } from '../../../outbox/emit';
import { cancelTimer, setTimer, timerRef } from '../../../platform/jobs/index';
import { machineTable, transition } from '../../../platform/machine';
import { newId } from '../../../shared/ids';
import { ContractMessages } from '../contracts.messages';
import {
  canMoveParticipant,
  type ParticipantStatus,
  type ParticipantTransition,
  participantMachine,
} from '../participants/participants.machine';
import { type RequestStatus, type RequestTransition, requestMachine } from './requests.machine';
import { addAudit, type ParticipantRow, type RequestRow } from './requests.repo';

export type ContractActorType = 'client_user' | 'client_api' | 'service_internal' | null;
export interface ContractActor {
  actorType: ContractActorType;
  actorAccountId: string | null;
}
export const AUTOMATIC: ContractActor = { actorType: null, actorAccountId: null };

/**
 * A request's timers (requests.jobs.ts handles them): its expiry, due at expires_at once it is
 * sent, and its next automatic reminder, due at next_reminder_at (set with it, progress.service.ts).
 * Both are removed when the request ends.
 */
export const CONTRACT_EXPIRY = timerRef<{ requestId: string }>({
  kind: 'contracts.request_expiry',
  keyOf: (p) => `contract:${p.requestId}`,
});
export const CONTRACT_REMINDER = timerRef<{ requestId: string }>({
  kind: 'contracts.reminder',
  keyOf: (p) => `contract:${p.requestId}`,
});

const FINAL_REQUEST: ReadonlySet<RequestStatus> = new Set([
  'completed',
  'declined',
  'voided',
  'expired',
  'failed',
]);

type RequestChanges = Partial<typeof contractRequests.$inferInsert>;
type ParticipantChanges = Partial<typeof contractParticipants.$inferInsert>;

const requestTable = machineTable(requestMachine, contractRequests, {
  conflict: ContractMessages.requestChangedMeanwhile,
});
const participantTable = machineTable(participantMachine, contractParticipants, {
  conflict: ContractMessages.participantChangedMeanwhile,
});

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

export function moveRequest(
  tx: DbOrTx,
  r: RequestRow,
  t: RequestTransition,
  ctx: { now: Date; actor: ContractActor; extra?: RequestChanges },
): Promise<RequestRow> {
  return transition(tx, requestTable, r, t, {
    set: ({ to }) => ({ ...ctx.extra, ...requestTimestamps(to, ctx.now), updatedAt: ctx.now }),
    event: (u, { from }) => emitRequestStatus(tx, u, from, ctx.actor, ctx.now),
    activity: (_u, { to }) => addAudit(tx, { requestId: r.id, type: `request.${to}`, at: ctx.now }),
    after: async (u, { to }) => {
      const timer = { requestId: u.id };
      if (to === 'sent')
        await setTimer(tx, { now: () => ctx.now }, CONTRACT_EXPIRY, {
          payload: timer,
          runAt: u.expiresAt,
          clientId: u.clientId,
        });
      else if (FINAL_REQUEST.has(to)) {
        await cancelTimer(tx, CONTRACT_EXPIRY, timer);
        await cancelTimer(tx, CONTRACT_REMINDER, timer);
      }
    },
  });
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

export function moveParticipant(
  tx: DbOrTx,
  p: ParticipantRow,
  t: ParticipantTransition,
  ctx: { now: Date; extra?: ParticipantChanges; ip?: string | null; userAgent?: string | null },
): Promise<ParticipantRow> {
  return transition(tx, participantTable, p, t, {
    set: ({ to }) => ({ ...participantTimestamps(to, ctx.now), ...ctx.extra, updatedAt: ctx.now }),
    event: (u, { from }) => emitParticipantStatus(tx, u, from, ctx.now),
    activity: (_u, { to }) =>
      addAudit(tx, {
        requestId: p.requestId,
        participantId: p.id,
        type: t === 'correct' ? 'participant.corrected' : `participant.${to}`,
        at: ctx.now,
        ip: ctx.ip,
        userAgent: ctx.userAgent,
      }),
  });
}

/** Cancels every participant still open (decline by another, expiry, void). */
export async function cancelOpenParticipants(tx: DbOrTx, ps: ParticipantRow[], now: Date, exceptId?: string) {
  for (const p of ps)
    if (p.id !== exceptId && canMoveParticipant('cancel', p.status))
      await moveParticipant(tx, p, 'cancel', { now });
}
