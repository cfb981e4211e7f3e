/**
 * How a request moves forward, inside the caller's transaction: inviting the next signing group,
 * completion (owed as the `contracts.seal` job when the last signer completes; the job seals the
 * PDFs and builds the certificate outside any transaction, then records the completion with
 * `contract.request.completed`), and the cascades of a decline, an expiry or a void. Emails and
 * provider calls are jobs written in the same transaction (effects.service.ts).
 */
import type { DbOrTx } from '../../../db/client';
import { contractDocuments } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { addDays } from '../../../platform/calendar';
import { setTimer } from '../../../platform/jobs/index';
import { decrypt } from '../../../shared/crypto';
import { recordActivity } from '../../activity/activity-writer.service';
import {
  allSignersCompleted,
  type ParticipantKind,
  participantsToInvite,
} from '../participants/participants.machine';
import { buildCertificate, type SealInput, sealPdf, sha256Hex } from '../pdf.service';
import { emitRequestCompleted } from './completed-event.service';
import { CONTRACT_JOBS, type Effects, owe } from './effects.service';
import {
  auditOf,
  originalsOf,
  type ParticipantRow,
  participantsOf,
  type RequestRow,
  updateRequest,
} from './requests.repo';
import {
  AUTOMATIC,
  CONTRACT_REMINDER,
  type ContractActor,
  cancelOpenParticipants,
  moveParticipant,
  moveRequest,
} from './requests.transitions';

type D = Pick<Deps, 'config' | 'secrets'>;

export const signUrl = (deps: D, tokenEnc: string) =>
  `${deps.config.publicUrl}/sign/${decrypt(deps.secrets.encryptionKey, tokenEnc)}`;

const ordered = (ps: ParticipantRow[]) =>
  ps.map((p) => ({ ...p, kind: p.kind as ParticipantKind, status: p.status }));

/** An invitation (or reminder) email to one participant, owed from this transaction. */
export function oweInvitation(tx: DbOrTx, now: Date, fx: Effects, participantId: string, reminder: boolean) {
  return owe(tx, now, fx, CONTRACT_JOBS.invitationEmail, { participantId, reminder });
}

/** Invites every participant whose turn has come (repeats while groups of viewers only open up). */
export async function inviteNextGroups(
  _deps: D,
  tx: DbOrTx,
  r: RequestRow,
  now: Date,
  fx: Effects,
): Promise<RequestRow> {
  let ps = await participantsOf(tx, r.id);
  const invited: ParticipantRow[] = [];
  for (;;) {
    const next = participantsToInvite(ordered(ps));
    if (next.length === 0) break;
    for (const p of next) {
      const moved = await moveParticipant(tx, p, 'invite', { now });
      invited.push(moved);
      if (r.delivery === 'email') await oweInvitation(tx, now, fx, moved.id, false);
    }
    ps = await participantsOf(tx, r.id);
  }
  if (invited.length > 0 && r.envelopeRef)
    await owe(tx, now, fx, CONTRACT_JOBS.participantsInvited, {
      ref: r.envelopeRef,
      participantIds: invited.map((p) => p.id),
    });
  if (invited.length > 0 && r.reminderIntervalDays && r.delivery === 'email')
    return setReminder(tx, r, now, addDays(now, r.reminderIntervalDays));
  return r;
}

/** The values stamped for one participant: what they typed, then defaults from name, email, date and field_values. */
function valuesFor(p: ParticipantRow, fields: SealInput['fields'], preset: Record<string, string>, at: Date) {
  const typed = p.signedValues ?? {};
  const out: Record<string, string> = {};
  const initials = p.name
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase())
    .join('');
  for (const f of fields.filter((x) => x.role === p.role)) {
    const v = typed[f.field_id] ?? (f.value_key ? preset[f.value_key] : undefined);
    if (v !== undefined && v !== '') out[f.field_id] = v;
    else if (f.type === 'signature' || f.type === 'name') out[f.field_id] = p.name;
    else if (f.type === 'initials') out[f.field_id] = initials;
    else if (f.type === 'email') out[f.field_id] = p.email;
    else if (f.type === 'date_signed') out[f.field_id] = (p.completedAt ?? at).toISOString().slice(0, 10);
    else if (f.type === 'checkbox' && f.required) out[f.field_id] = 'true';
  }
  return out;
}

export interface Sealed {
  signed: {
    templateId: string;
    position: number;
    fields: SealInput['fields'];
    fileName: string;
    content: Buffer;
  }[];
  certificate: Buffer;
}

/**
 * Seals every original and builds the certificate (CPU work, no transaction held). With `provided`
 * (a vendor hosting the signing sealed them: its documents in envelope order) those bytes are kept
 * as they are and only the certificate, over their digests, is ours.
 */
export async function sealDocuments(
  tx: DbOrTx,
  r: RequestRow,
  now: Date,
  provided?: Buffer[],
): Promise<Sealed> {
  const ps = await participantsOf(tx, r.id);
  const originals = await originalsOf(tx, r.id);
  const trail = await auditOf(tx, r.id);
  const byId = new Map(ps.map((p) => [p.id, p]));
  const audit = trail.map((a) => ({
    at: a.occurredAt,
    text: `${a.type}${a.participantId ? ` by ${byId.get(a.participantId)?.email ?? a.participantId}` : ''}${a.ip ? ` from ${a.ip}` : ''}`,
  }));
  audit.push({ at: now, text: 'request.completed' });
  const signed: Sealed['signed'] = [];
  for (const d of originals) {
    const input: SealInput = {
      requestId: r.id,
      title: r.title,
      fields: d.fields,
      participants: ps.map((p) => ({
        participantId: p.id,
        role: p.role,
        kind: p.kind,
        name: p.name,
        email: p.email,
        completedAt: p.completedAt,
        values: valuesFor(p, d.fields, r.fieldValues, now),
      })),
      audit,
      originalSha256: d.sha256,
      completedAt: now,
    };
    const content = provided ? provided[signed.length]! : await sealPdf(d.content, input);
    const fileName = d.fileName.replace(/\.pdf$/i, '') + '-signed.pdf';
    signed.push({ templateId: d.templateId, position: d.position, fields: d.fields, fileName, content });
  }
  const first = originals[0]!;
  const certificate = await buildCertificate(
    {
      requestId: r.id,
      title: r.title,
      fields: [],
      participants: ps.map((p) => ({
        participantId: p.id,
        role: p.role,
        kind: p.kind,
        name: p.name,
        email: p.email,
        completedAt: p.completedAt,
        values: {},
      })),
      audit,
      originalSha256: first.sha256,
      completedAt: now,
    },
    signed.map((s) => ({ fileName: s.fileName, sha256: sha256Hex(s.content) })),
  );
  return { signed, certificate };
}

/**
 * completed (in the transaction holding the request's lock): stores the sealed documents and the
 * certificate, emits the events; the completed emails and the payment link are owed.
 */
export async function completeRequest(
  tx: DbOrTx,
  r: RequestRow,
  sealed: Sealed,
  now: Date,
  fx: Effects,
): Promise<RequestRow> {
  for (const d of sealed.signed)
    await tx.insert(contractDocuments).values({
      requestId: r.id,
      clientId: r.clientId,
      templateId: d.templateId,
      position: d.position,
      kind: 'signed',
      fileName: d.fileName,
      sha256: sha256Hex(d.content),
      size: d.content.length,
      content: d.content,
      fields: d.fields,
      createdAt: now,
    });
  const certificateSha256 = sha256Hex(sealed.certificate);
  const done = await moveRequest(tx, r, 'complete', {
    now,
    actor: AUTOMATIC,
    extra: { certificate: sealed.certificate, certificateSha256, paymentDue: r.payment ? 1 : 0 },
  });
  // With a payment the event waits for the link (completed-event.service.ts).
  if (!r.payment) await emitRequestCompleted(tx, done, { transactionId: null, checkoutUrl: null }, now);
  await recordActivity(tx, {
    clientId: r.clientId,
    action: 'contract_request.completed',
    at: now,
    actor: { type: 'system', accountId: null, credentialId: null },
    target: { type: 'contract_request', id: r.id, label: r.title },
    metadata: { certificate_sha256: certificateSha256 },
  });
  // Every participant (email delivery) and every CC gets the sealed PDFs at completion.
  const recipients = [
    ...(r.delivery === 'email'
      ? (await participantsOf(tx, r.id)).map((p) => ({ email: p.email, name: p.name }))
      : []),
    ...r.ccRecipients.map((c) => ({ email: c.email, name: c.name })),
  ];
  for (const to of recipients)
    await owe(tx, now, fx, CONTRACT_JOBS.completedEmail, { requestId: r.id, ...to });
  if (r.payment)
    await owe(tx, now, fx, CONTRACT_JOBS.settlePayment, { requestId: r.id }, { dedupeKey: r.id });
  fx.workflowRequestIds.push(r.id);
  return done;
}

/**
 * After a participant completed: in_progress, then the next group, or (the last signer) the seal
 * job; the request keeps its status, every signer shown completed, until the job completes it.
 */
export async function afterParticipantCompleted(deps: D, tx: DbOrTx, r: RequestRow, now: Date, fx: Effects) {
  const ps = await participantsOf(tx, r.id);
  if (allSignersCompleted(ordered(ps))) {
    await owe(
      tx,
      now,
      fx,
      CONTRACT_JOBS.seal,
      { requestId: r.id },
      { dedupeKey: r.id, clientId: r.clientId },
    );
    return r;
  }
  let cur = r;
  if (cur.status === 'sent') cur = await moveRequest(tx, cur, 'start', { now, actor: AUTOMATIC });
  return inviteNextGroups(deps, tx, cur, now, fx);
}

/** declined / expired / voided: the request moves, the others are canceled. */
export async function endRequest(
  tx: DbOrTx,
  r: RequestRow,
  t: 'decline' | 'expire' | 'void',
  ctx: {
    now: Date;
    actor: ContractActor;
    extra?: Parameters<typeof moveRequest>[3]['extra'];
    exceptParticipantId?: string;
  },
  fx: Effects,
) {
  const moved = await moveRequest(tx, r, t, { now: ctx.now, actor: ctx.actor, extra: ctx.extra });
  await cancelOpenParticipants(tx, await participantsOf(tx, r.id), ctx.now, ctx.exceptParticipantId);
  fx.workflowRequestIds.push(r.id);
  return moved;
}

/** Sets the request's next automatic reminder and its timer (in the caller's transaction). */
export async function setReminder(tx: DbOrTx, r: RequestRow, now: Date, at: Date): Promise<RequestRow> {
  const updated = await updateRequest(tx, r.id, { nextReminderAt: at });
  await setTimer(tx, { now: () => now }, CONTRACT_REMINDER, {
    payload: { requestId: r.id },
    runAt: at,
    clientId: r.clientId,
  });
  return updated;
}
