/**
 * The provider envelope of a pending request: the `contracts.create_envelope` job, owed by the send's
 * transaction and first tried right after its commit; when the provider cannot be reached the jobs
 * runner retries with a growing delay. Accepted: the request is `sent`, the first group invited and
 * on_send CCs emailed (jobs). Refused: `failed`.
 */
import { eq } from 'drizzle-orm';
import { type ContractFieldDef, contractParticipants, contractRequests } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import type { EnvelopeField, EnvelopeInput } from '../../../providers/esign/port';
import type { ParticipantKind } from '../participants/participants.machine';
import { CONTRACT_JOBS, type Effects, noEffects, owe } from './effects.service';
import { inviteNextGroups } from './progress.service';
import {
  lockRequestById,
  originalsOf,
  type ParticipantRow,
  participantsOf,
  type RequestRow,
  updateRequest,
} from './requests.repo';
import { AUTOMATIC, moveRequest } from './requests.transitions';

/** A template field as the provider port takes it (the sender's prefilled value resolved). */
export const envelopeFieldOf = (f: ContractFieldDef, r: Pick<RequestRow, 'fieldValues'>): EnvelopeField => ({
  fieldId: f.field_id,
  role: f.role,
  type: f.type,
  page: f.page,
  x: f.x,
  y: f.y,
  width: f.width,
  height: f.height,
  required: f.required,
  label: f.label,
  prefill: f.value_key ? (r.fieldValues[f.value_key] ?? null) : null,
});

export const envelopeParticipantOf = (p: ParticipantRow): EnvelopeInput['participants'][number] => ({
  participantId: p.id,
  role: p.role,
  kind: p.kind as ParticipantKind,
  signingOrder: p.signingOrder,
  name: p.name,
  email: p.email,
});

/** Creates the envelope; returns the jobs its acceptance owes. Throws (to retry) when the provider fails. */
export async function createEnvelopeFor(deps: Deps, requestId: string): Promise<Effects> {
  const fx: Effects = noEffects();
  const [r] = await deps.db.select().from(contractRequests).where(eq(contractRequests.id, requestId));
  if (r?.status !== 'pending') return fx;
  const [ps, docs] = await Promise.all([participantsOf(deps.db, r.id), originalsOf(deps.db, r.id)]);
  const result = await deps.providers.esign.createEnvelope({
    requestId: r.id,
    title: r.title,
    documents: docs.map((d) => ({
      fileName: d.fileName,
      sha256: d.sha256,
      content: d.content,
      fields: d.fields.map((f) => envelopeFieldOf(f, r)),
    })),
    participants: ps.map(envelopeParticipantOf),
    cc: r.ccRecipients.map((c) => ({ name: c.name, email: c.email })),
    redirectUrl: r.redirectUrl,
  });
  await deps.db.transaction(async (tx) => {
    const cur = await lockRequestById(tx, r.id);
    if (cur?.status !== 'pending') return;
    const now = deps.clock.now();
    if (!result.accepted) {
      await moveRequest(tx, cur, 'fail', {
        now,
        actor: AUTOMATIC,
        extra: { statusReason: result.reason, envelopeRef: result.ref },
      });
      fx.workflowRequestIds.push(cur.id);
      return;
    }
    for (const x of result.recipients ?? [])
      await tx
        .update(contractParticipants)
        .set({ providerRecipientRef: x.ref })
        .where(eq(contractParticipants.id, x.participantId));
    let sent = await moveRequest(tx, cur, 'accept', {
      now,
      actor: AUTOMATIC,
      extra: { envelopeRef: result.ref },
    });
    sent = await inviteNextGroups(deps, tx, sent, now, fx);
    if (sent.delivery === 'email' && sent.viewTokenEnc) {
      const cc = [];
      for (const c of sent.ccRecipients) {
        if (c.when !== 'on_send') cc.push(c);
        else {
          await owe(tx, now, fx, CONTRACT_JOBS.ccEmail, { requestId: sent.id, email: c.email });
          cc.push({ ...c, sent_at: now.toISOString() });
        }
      }
      await updateRequest(tx, sent.id, { ccRecipients: cc });
    }
    fx.workflowRequestIds.push(cur.id);
  });
  return fx;
}
