/**
 * How a request moves forward, inside the caller's transaction: inviting the next signing group,
 * completion (sealed PDFs, certificate, `contract.request.completed`), and the cascades of a decline,
 * an expiry or a void. Side effects are collected for after the commit.
 */
import type { DbOrTx } from '../../db/client';
import { contractDocuments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { decrypt } from '../../shared/crypto';
import { recordActivity } from '../activity/activity.writer';
import { buildCertificate, type SealInput, sealPdf, sha256Hex } from './contracts.pdf';
import { allSignersCompleted, type ParticipantKind, participantsToInvite } from './participants.machine';
import { emitRequestCompleted } from './requests.completed-event';
import type { Effects } from './requests.effects';
import { completedMail, invitationMail } from './requests.mail';
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
  type ContractActor,
  cancelOpenParticipants,
  moveParticipant,
  moveRequest,
} from './requests.transitions';

type D = Pick<Deps, 'config' | 'secrets'>;
const DAY = 86400;

export const signUrl = (deps: D, tokenEnc: string) =>
  `${deps.config.publicUrl}/sign/${decrypt(deps.secrets.encryptionKey, tokenEnc)}`;

const ordered = (ps: ParticipantRow[]) =>
  ps.map((p) => ({ ...p, kind: p.kind as ParticipantKind, status: p.status }));

/** Invites every participant whose turn has come (repeats while groups of viewers only open up). */
export async function inviteNextGroups(
  deps: D,
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
      if (r.delivery === 'email')
        fx.mails.push(invitationMail(moved, r.title, signUrl(deps, moved.tokenEnc!), r.message));
    }
    ps = await participantsOf(tx, r.id);
  }
  if (invited.length > 0 && r.envelopeRef)
    fx.invited.push({
      ref: r.envelopeRef,
      participants: invited.map((p) => ({ participantId: p.id, email: p.email })),
    });
  if (invited.length > 0 && r.reminderIntervalDays && r.delivery === 'email')
    return updateRequest(tx, r.id, { nextReminderAt: addSeconds(now, r.reminderIntervalDays * DAY) });
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

/** completed: seal every document, build the certificate, emit the two events; the payment link is owed. */
export async function completeRequest(
  _deps: D,
  tx: DbOrTx,
  r: RequestRow,
  now: Date,
  fx: Effects,
): Promise<RequestRow> {
  const ps = await participantsOf(tx, r.id);
  const originals = await originalsOf(tx, r.id);
  const trail = await auditOf(tx, r.id);
  const byId = new Map(ps.map((p) => [p.id, p]));
  const audit = trail.map((a) => ({
    at: a.occurredAt,
    text: `${a.type}${a.participantId ? ` by ${byId.get(a.participantId)?.email ?? a.participantId}` : ''}${a.ip ? ` from ${a.ip}` : ''}`,
  }));
  audit.push({ at: now, text: 'request.completed' });
  const signed: { id: string; fileName: string; sha256: string; content: Buffer }[] = [];
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
    const content = await sealPdf(d.content, input);
    const fileName = d.fileName.replace(/\.pdf$/i, '') + '-signed.pdf';
    const [row] = await tx
      .insert(contractDocuments)
      .values({
        requestId: r.id,
        clientId: r.clientId,
        templateId: d.templateId,
        position: d.position,
        kind: 'signed',
        fileName,
        sha256: sha256Hex(content),
        size: content.length,
        content,
        fields: d.fields,
        createdAt: now,
      })
      .returning({ id: contractDocuments.id });
    signed.push({ id: row!.id, fileName, sha256: sha256Hex(content), content });
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
    signed,
  );
  const certificateSha256 = sha256Hex(certificate);
  const done = await moveRequest(tx, r, 'complete', {
    now,
    actor: AUTOMATIC,
    extra: { certificate, certificateSha256, paymentDue: r.payment ? 1 : 0 },
  });
  // With a payment the event waits for the link (requests.completed-event.ts).
  if (!r.payment) await emitRequestCompleted(tx, done, { transactionId: null, checkoutUrl: null }, now);
  await recordActivity(tx, {
    clientId: r.clientId,
    action: 'contract_request.completed',
    at: now,
    actor: { type: 'system', accountId: null, credentialId: null },
    target: { type: 'contract_request', id: r.id, label: r.title },
    metadata: { certificate_sha256: certificateSha256 },
  });
  if (r.delivery === 'email') {
    const files = signed.map((s) => ({ fileName: s.fileName, content: s.content }));
    for (const p of ps) fx.mails.push(completedMail({ email: p.email, name: p.name }, r.title, files));
  }
  // Every CC gets the sealed PDF at completion (named-areas.md section 1).
  for (const c of r.ccRecipients)
    fx.mails.push(
      completedMail(
        { email: c.email, name: c.name },
        r.title,
        signed.map((s) => ({ fileName: s.fileName, content: s.content })),
      ),
    );
  if (r.payment) fx.paymentFor = r.id;
  fx.workflowRequestIds.push(r.id);
  return done;
}

/** After a participant completed: in_progress, then completion or the next group. */
export async function afterParticipantCompleted(deps: D, tx: DbOrTx, r: RequestRow, now: Date, fx: Effects) {
  const ps = await participantsOf(tx, r.id);
  if (allSignersCompleted(ordered(ps))) return completeRequest(deps, tx, r, now, fx);
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
