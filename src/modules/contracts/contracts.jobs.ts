/**
 * The handlers of the contract jobs (kinds and retries in requests/effects.service.ts). Each reads the
 * current rows and does nothing when its work has become pointless (a request ended meanwhile, a
 * participant no longer waiting for their turn), so a late retry never mails a stale invitation.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { contractDocuments, contractParticipants, contractRequests } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { defineJob, type JobDefinition, PermanentJobError } from '../../platform/jobs/index';
import { decrypt } from '../../shared/crypto';
import type { ParticipantKind } from './participants/participants.machine';
import { allSignersCompleted, isActiveTurn } from './participants/participants.machine';
import { CONTRACT_JOBS, type Effects, noEffects, wakeWorkflowRuns } from './requests/effects.service';
import { createEnvelopeFor, envelopeFieldOf, envelopeParticipantOf } from './requests/envelope.service';
import { ccOnSendMail, completedMail, invitationMail, paymentMail } from './requests/mail.service';
import { settleContractPayment } from './requests/payment.service';
import { completeRequest, sealDocuments, signUrl } from './requests/progress.service';
import { lockRequestById, originalsOf, participantsOf } from './requests/requests.repo';

const LIVE = ['sent', 'in_progress'];

async function requestById(deps: Pick<Deps, 'db'>, id: string) {
  const [r] = await deps.db.select().from(contractRequests).where(eq(contractRequests.id, id));
  if (!r) throw new PermanentJobError(`contract request ${id} not found`);
  return r;
}

/** After a job's own commit: its follow-up jobs get their first attempt, workflow runs wake. */
async function afterJob(deps: Deps, fx: Effects, runNow: (ids: readonly (string | null)[]) => Promise<void>) {
  await runNow(fx.jobIds);
  await wakeWorkflowRuns(deps, fx);
}

export const invitationEmailJob = defineJob<{ participantId: string; reminder: boolean }>({
  ...CONTRACT_JOBS.invitationEmail,
  async run(deps, { participantId, reminder }) {
    const [p] = await deps.db
      .select()
      .from(contractParticipants)
      .where(eq(contractParticipants.id, participantId));
    if (!p?.tokenEnc) return;
    const r = await requestById(deps, p.requestId);
    if (!LIVE.includes(r.status) || !isActiveTurn(p.status)) return;
    await deps.mailer.send(invitationMail(p, r.title, signUrl(deps, p.tokenEnc), r.message, reminder));
  },
});

export const ccEmailJob = defineJob<{ requestId: string; email: string }>({
  ...CONTRACT_JOBS.ccEmail,
  async run(deps, { requestId, email }) {
    const r = await requestById(deps, requestId);
    const cc = r.ccRecipients.find((c) => c.email === email);
    if (!cc || !r.viewTokenEnc) return;
    const url = `${deps.config.publicUrl}/sign/${decrypt(deps.secrets.encryptionKey, r.viewTokenEnc)}`;
    await deps.mailer.send(ccOnSendMail(cc, r.title, url));
  },
});

export const completedEmailJob = defineJob<{ requestId: string; email: string; name: string | null }>({
  ...CONTRACT_JOBS.completedEmail,
  async run(deps, { requestId, email, name }) {
    const r = await requestById(deps, requestId);
    const files = await deps.db
      .select({ fileName: contractDocuments.fileName, content: contractDocuments.content })
      .from(contractDocuments)
      .where(and(eq(contractDocuments.requestId, r.id), eq(contractDocuments.kind, 'signed')))
      .orderBy(contractDocuments.position);
    await deps.mailer.send(completedMail({ email, name }, r.title, files));
  },
});

export const paymentEmailJob = defineJob<{ requestId: string; email: string }>({
  ...CONTRACT_JOBS.paymentEmail,
  async run(deps, { requestId, email }) {
    const r = await requestById(deps, requestId);
    const p = r.payment;
    if (!p?.checkout_url) return;
    await deps.mailer.send(paymentMail(email, r.title, p.checkout_url, p.amount, p.currency));
  },
});

export const voidEnvelopeJob = defineJob<{ ref: string; reason: string }>({
  ...CONTRACT_JOBS.voidEnvelope,
  async run(deps, { ref, reason }) {
    await deps.providers.esign.voidEnvelope(ref, reason);
  },
});

export const participantsInvitedJob = defineJob<{ ref: string; participantIds: string[] }>({
  ...CONTRACT_JOBS.participantsInvited,
  async run(deps, { ref, participantIds }) {
    const ps = await deps.db
      .select({ participantId: contractParticipants.id, email: contractParticipants.email })
      .from(contractParticipants)
      .where(inArray(contractParticipants.id, participantIds));
    if (ps.length > 0) await deps.providers.esign.participantsInvited(ref, ps);
  },
});

/**
 * A corrected participant of a vendor hosting the signing: its recipient is replaced there (new link,
 * fields placed again) and the new reference stored, unless the participant changed meanwhile.
 */
export const replaceRecipientJob = defineJob<{ participantId: string; oldRef: string }>({
  ...CONTRACT_JOBS.replaceRecipient,
  async run(deps, { participantId, oldRef }) {
    const hosted = deps.providers.esign.hosted;
    if (!hosted) throw new PermanentJobError('the e-signing provider does not host the signing');
    const [p] = await deps.db
      .select()
      .from(contractParticipants)
      .where(eq(contractParticipants.id, participantId));
    if (!p || p.providerRecipientRef !== null) return;
    const r = await requestById(deps, p.requestId);
    // A waiting participant is replaced too: its turn would otherwise find no recipient.
    if (
      !LIVE.includes(r.status) ||
      !r.envelopeRef ||
      ['completed', 'declined', 'canceled'].includes(p.status)
    )
      return;
    const docs = await originalsOf(deps.db, r.id);
    const fields = docs.flatMap((d, documentIndex) =>
      d.fields.filter((f) => f.role === p.role).map((f) => ({ documentIndex, field: envelopeFieldOf(f, r) })),
    );
    const ref = await hosted.replaceRecipient(r.envelopeRef, oldRef, envelopeParticipantOf(p), fields);
    await deps.db
      .update(contractParticipants)
      .set({ providerRecipientRef: ref, updatedAt: deps.clock.now() })
      .where(
        and(
          eq(contractParticipants.id, p.id),
          eq(contractParticipants.requestId, r.id),
          isNull(contractParticipants.providerRecipientRef),
        ),
      );
  },
});

export const createEnvelopeJob = defineJob<{ requestId: string }>({
  ...CONTRACT_JOBS.createEnvelope,
  async run(deps, { requestId }, ctx) {
    await afterJob(deps, await createEnvelopeFor(deps, requestId), ctx.runNow);
  },
});

/**
 * Seals and certifies outside any transaction (the PDF work holds no lock), then completes the
 * request in one transaction with its row locked, if it is still live with every signer completed.
 */
export const sealJob = defineJob<{ requestId: string }>({
  ...CONTRACT_JOBS.seal,
  async run(deps, { requestId }, ctx) {
    const r = await requestById(deps, requestId);
    if (!LIVE.includes(r.status)) return;
    const now = deps.clock.now();
    // A vendor hosting the signing seals the documents itself: its bytes are kept (EsignNotReadyError,
    // thrown until it has sealed them, makes the job try again later).
    const hosted = deps.providers.esign.hosted;
    const provided = hosted && r.envelopeRef ? await hosted.sealedDocuments(r.envelopeRef) : undefined;
    if (provided && provided.length !== (await originalsOf(deps.db, r.id)).length)
      throw new PermanentJobError(`provider sealed ${provided.length} documents for request ${r.id}`);
    const sealed = await sealDocuments(deps.db, r, now, provided);
    const fx = noEffects();
    await deps.db.transaction(async (tx) => {
      const cur = await lockRequestById(tx, requestId);
      if (!cur || !LIVE.includes(cur.status)) return;
      const ps = await participantsOf(tx, cur.id);
      const ordered = ps.map((p) => ({ ...p, kind: p.kind as ParticipantKind }));
      if (!allSignersCompleted(ordered)) return;
      await completeRequest(tx, cur, sealed, now, fx);
    });
    await afterJob(deps, fx, ctx.runNow);
  },
});

export const settlePaymentJob = defineJob<{ requestId: string }>({
  ...CONTRACT_JOBS.settlePayment,
  async run(deps, { requestId }, ctx) {
    await afterJob(deps, await settleContractPayment(deps, requestId), ctx.runNow);
  },
});

export const contractJobs: JobDefinition<never>[] = [
  invitationEmailJob,
  ccEmailJob,
  completedEmailJob,
  paymentEmailJob,
  voidEnvelopeJob,
  participantsInvitedJob,
  replaceRecipientJob,
  createEnvelopeJob,
  sealJob,
  settlePaymentJob,
] as unknown as JobDefinition<never>[];
