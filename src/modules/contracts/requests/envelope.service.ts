/**
 * The provider envelope of a pending request: the `contracts.create_envelope` job, owed by the send's
 * transaction and first tried right after its commit; when the provider cannot be reached the jobs
 * runner retries with a growing delay. Accepted: the request is `sent`, the first group invited and
 * on_send CCs emailed (jobs). Refused: `failed`.
 */
import { eq } from 'drizzle-orm';
import { contractRequests } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { CONTRACT_JOBS, type Effects, noEffects, owe } from './effects.service';
import { inviteNextGroups } from './progress.service';
import { documentsOf, lockRequestById, participantsOf, updateRequest } from './requests.repo';
import { AUTOMATIC, moveRequest } from './requests.transitions';

/** Creates the envelope; returns the jobs its acceptance owes. Throws (to retry) when the provider fails. */
export async function createEnvelopeFor(deps: Deps, requestId: string): Promise<Effects> {
  const fx: Effects = noEffects();
  const [r] = await deps.db.select().from(contractRequests).where(eq(contractRequests.id, requestId));
  if (r?.status !== 'pending') return fx;
  const [ps, docs] = await Promise.all([participantsOf(deps.db, r.id), documentsOf(deps.db, r.id)]);
  const result = await deps.providers.esign.createEnvelope({
    requestId: r.id,
    title: r.title,
    documents: docs
      .filter((d) => d.kind === 'original')
      .map((d) => ({ fileName: d.fileName, sha256: d.sha256 })),
    participants: ps.map((p) => ({ participantId: p.id, role: p.role, name: p.name, email: p.email })),
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
