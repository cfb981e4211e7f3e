/**
 * Signed notifications of the e-signing provider, applied in ONE transaction per notification with
 * the request row locked. A notification whose revision is not newer than the last one applied (a
 * replay, or an older one arriving late) changes nothing; one the current state does not allow is
 * acknowledged and ignored.
 */
import type { Deps } from '../../../deps';
import type { EnvelopeSnapshot, EsignHint, EsignNotification } from '../../../providers/esign/port';
import { unauthorized } from '../../../shared/errors';
import { PaymentMessages } from '../../payments/payments.messages';
import { ContractMessages } from '../contracts.messages';
import { canMoveParticipant } from '../participants/participants.machine';
import { runEffects } from './after-commit.service';
import { type Effects, noEffects } from './effects.service';
import { afterParticipantCompleted, endRequest } from './progress.service';
import { canMoveRequest } from './requests.machine';
import {
  findRequestByEnvelope,
  lockRequestById,
  type ParticipantRow,
  participantsOf,
  updateRequest,
} from './requests.repo';
import { AUTOMATIC, moveParticipant, moveRequest } from './requests.transitions';

export function verifyEsignNotification(
  deps: Deps,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
) {
  const n = deps.providers.esign.verifyNotification(rawBody, headers);
  if (!n) throw unauthorized(PaymentMessages.invalidNotificationSignature);
  return n;
}

export async function applyEsignNotification(
  deps: Deps,
  n: EsignNotification,
): Promise<{ received: true; applied: boolean }> {
  const id = await findRequestByEnvelope(deps.db, n.envelopeRef);
  if (!id) return { received: true, applied: false };
  const fx: Effects = noEffects();
  const applied = await deps.db.transaction(async (tx) => {
    const r = await lockRequestById(tx, id);
    if (!r || (n.revision !== null && n.revision <= r.providerRevision)) return false;
    const now = deps.clock.now();
    let cur = n.revision === null ? r : await updateRequest(tx, r.id, { providerRevision: n.revision });
    const status = cur.status;
    if (n.type === 'envelope.expired') {
      if (!canMoveRequest('expire', status)) return false;
      await endRequest(tx, cur, 'expire', { now, actor: AUTOMATIC }, fx);
      return true;
    }
    if (n.type === 'envelope.failed') {
      if (!canMoveRequest('fail', status)) return false;
      await moveRequest(tx, cur, 'fail', {
        now,
        actor: AUTOMATIC,
        extra: { statusReason: n.reason ?? ContractMessages.documentNotProcessed },
      });
      fx.workflowRequestIds.push(cur.id);
      return true;
    }
    const p = (await participantsOf(tx, r.id)).find((x) => x.id === n.participantId);
    if (!p) return false;
    const ps = p.status;
    const seen = { now, ip: n.ip, userAgent: n.userAgent };
    switch (n.type) {
      case 'participant.viewed':
        if (!canMoveParticipant('view', ps)) return false;
        await moveParticipant(tx, p, 'view', seen);
        return true;
      case 'participant.bounced':
        if (!canMoveParticipant('bounce', ps)) return false;
        await moveParticipant(tx, p, 'bounce', seen);
        return true;
      case 'participant.declined':
        if (!canMoveParticipant('decline', ps) || !canMoveRequest('decline', status)) return false;
        await moveParticipant(tx, p, 'decline', {
          ...seen,
          extra: { declineReason: n.reason?.slice(0, 500) ?? null },
        });
        await endRequest(tx, cur, 'decline', { now, actor: AUTOMATIC, exceptParticipantId: p.id }, fx);
        return true;
      case 'participant.signed': {
        if (!canMoveParticipant('complete', ps) || !['sent', 'in_progress'].includes(status)) return false;
        await moveParticipant(tx, p, 'complete', { ...seen, extra: { signedValues: n.values } });
        cur = await afterParticipantCompleted(deps, tx, cur, now, fx);
        return true;
      }
    }
    return false;
  });
  await runEffects(deps, fx);
  return { received: true, applied };
}

/** What a re-read envelope says happened, per participant, in the order it is applied. */
function changesOf(
  snapshot: EnvelopeSnapshot,
  ps: ParticipantRow[],
): { type: EsignNotification['type']; participantId: string | null; reason: string | null }[] {
  const out: { type: EsignNotification['type']; participantId: string | null; reason: string | null }[] = [];
  const byRef = new Map(snapshot.recipients.map((x) => [x.ref, x]));
  // Signing order, then position: an earlier group's completion invites the next before it acts.
  const ordered = [...ps].sort((a, b) => a.signingOrder - b.signingOrder || a.position - b.position);
  for (const p of ordered) {
    const x = p.providerRecipientRef ? byRef.get(p.providerRecipientRef) : undefined;
    if (!x) continue;
    if (x.viewed || x.completed || x.declined)
      out.push({ type: 'participant.viewed', participantId: p.id, reason: null });
    if (x.completed) out.push({ type: 'participant.signed', participantId: p.id, reason: null });
    else if (x.declined)
      out.push({ type: 'participant.declined', participantId: p.id, reason: x.declineReason });
  }
  if (snapshot.status === 'cancelled')
    out.push({
      type: 'envelope.failed',
      participantId: null,
      reason: ContractMessages.envelopeCancelledByProvider,
    });
  return out;
}

/**
 * A vendor notification is a hint (docs/vendors/documenso.md): the envelope it names is read again
 * and what the vendor now holds is applied through the same transitions as a signed notification,
 * each change in its own transaction. A duplicate, late or reordered hint finds nothing new: every
 * transition is refused from the state it already reached. True when something changed.
 */
export async function rereadEsignEnvelope(deps: Deps, hint: EsignHint): Promise<boolean> {
  const hosted = deps.providers.esign.hosted;
  if (!hosted) return false;
  const id = await findRequestByEnvelope(deps.db, hint.envelopeRef);
  if (!id) return false;
  const snapshot = await hosted.readEnvelope(hint.envelopeRef);
  const ps = await participantsOf(deps.db, id);
  let changed = false;
  for (const c of changesOf(snapshot, ps)) {
    const res = await applyEsignNotification(deps, {
      eventId: `reread:${hint.envelopeRef}`,
      envelopeRef: hint.envelopeRef,
      revision: null,
      type: c.type,
      participantId: c.participantId,
      reason: c.reason,
      ip: null,
      userAgent: null,
      values: {},
      occurredAt: deps.clock.now(),
    });
    changed ||= res.applied;
  }
  return changed;
}
