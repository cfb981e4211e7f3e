/**
 * The hosted signing page's use cases (`/sign/{token}`): find the participant (or the view-only CC
 * link) by the keyed hash of its token, the email OTP (5 minutes, 5 attempts), and Sign / Decline,
 * which are reported to the e-signing provider; its signed notification then moves the statuses.
 */
import { eq } from 'drizzle-orm';
import { clients, contractRequests } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { addSeconds } from '../../../shared/clock';
import { keyedHash, safeEqual } from '../../../shared/crypto';
import { randomDigits } from '../../../shared/ids';
import { ContractMessages } from '../contracts.messages';
import { loadPdfLib } from '../pdf.service';
import { applyEsignNotification } from '../requests/esign-notifications.service';
import { otpMail } from '../requests/mail.service';
import { isTerminalRequest } from '../requests/requests.machine';
import {
  addAudit,
  documentsOfKind,
  findParticipantByTokenHash,
  type ParticipantRow,
  type RequestRow,
  updateParticipant,
} from '../requests/requests.repo';

export const OTP_TTL_SECONDS = 300;
export const OTP_MAX_ATTEMPTS = 5;

export interface SignDocument {
  id: string;
  fileName: string;
  pages: { width: number; height: number }[];
  fields: RequestFieldView[];
}
export interface RequestFieldView {
  field_id: string;
  role: string;
  type: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  prefill: string | null;
}

export type SignContext =
  | { kind: 'participant'; request: RequestRow; participant: ParticipantRow; merchantName: string }
  | { kind: 'cc'; request: RequestRow; merchantName: string };
export type ParticipantContext = Extract<SignContext, { kind: 'participant' }>;

export async function loadSignContext(deps: Deps, token: string): Promise<SignContext | null> {
  if (!/^[A-Za-z0-9_-]{40,100}$/.test(token)) return null;
  const hash = keyedHash(deps.secrets.hashKey, token);
  const p = await findParticipantByTokenHash(deps.db, hash);
  const [r] = p
    ? await deps.db.select().from(contractRequests).where(eq(contractRequests.id, p.requestId))
    : await deps.db.select().from(contractRequests).where(eq(contractRequests.viewTokenHash, hash));
  if (!r) return null;
  const [c] = await deps.db
    .select({ name: clients.companyName })
    .from(clients)
    .where(eq(clients.id, r.clientId));
  const merchantName = c?.name ?? 'Merchant';
  return p
    ? { kind: 'participant', request: r, participant: p, merchantName }
    : { kind: 'cc', request: r, merchantName };
}

/** Expired, voided, declined or failed requests and canceled participants: the link is gone (410). */
export function isLinkGone(ctx: SignContext): boolean {
  const s = ctx.request.status;
  if (ctx.kind === 'cc') return isTerminalRequest(s) && s !== 'completed';
  if (ctx.participant.status === 'completed' || ctx.participant.status === 'declined') return false;
  return ctx.participant.status === 'canceled' || (isTerminalRequest(s) && s !== 'completed');
}

/**
 * The documents a page shows: the originals with the fields of `role` (every field when null), or,
 * for a viewer of a completed request whose signing a vendor hosts, the sealed ones (no fields).
 */
export async function documentsForPage(
  deps: Deps,
  r: RequestRow,
  role: string | null,
  kind: 'original' | 'signed' = 'original',
): Promise<SignDocument[]> {
  const docs = await documentsOfKind(deps.db, r.id, kind);
  const out: SignDocument[] = [];
  const { PDFDocument } = await loadPdfLib();
  for (const d of docs) {
    const pdf = await PDFDocument.load(d.content, { ignoreEncryption: true, updateMetadata: false });
    out.push({
      id: d.id,
      fileName: d.fileName,
      pages: pdf.getPages().map((p) => p.getSize()),
      // A sealed document holds the values already: no field boxes over it.
      fields: d.fields
        .filter((f) => kind === 'original' && (role === null || f.role === role))
        .map((f) => ({ ...f, prefill: f.value_key ? (r.fieldValues[f.value_key] ?? null) : null })),
    });
  }
  return out;
}

export async function documentBytes(deps: Deps, ctx: SignContext, documentId: string) {
  const docs = await documentsOfKind(deps.db, ctx.request.id, 'original');
  if (sealedForViewer(deps, ctx)) docs.push(...(await documentsOfKind(deps.db, ctx.request.id, 'signed')));
  return docs.find((d) => d.id === documentId) ?? null;
}

/**
 * A viewer when a vendor hosts the signing (docs/vendors/documenso.md, "Viewers"): never handed over
 * (the vendor's page shows a copied recipient no document before completion); our page shows it the
 * originals, records its opening itself, and the sealed documents once the request is completed.
 */
export const isHostedViewer = (deps: Deps, ctx: SignContext): boolean =>
  Boolean(deps.providers.esign.hosted) && ctx.kind === 'participant' && ctx.participant.kind === 'viewer';

/** The sealed documents are the hosted viewer's once the request is completed. */
export const sealedForViewer = (deps: Deps, ctx: SignContext) =>
  isHostedViewer(deps, ctx) && ctx.request.status === 'completed';

/**
 * The hosted viewer opened our page (past the email code): `viewed` is recorded by us, through the
 * same transition, trail, events and activity as a provider's notification of an opening.
 */
export async function recordHostedViewerOpened(
  deps: Deps,
  ctx: ParticipantContext,
  seen: { ip: string; userAgent: string | null },
) {
  if (!ctx.request.envelopeRef) return;
  await applyEsignNotification(deps, {
    eventId: `page:${ctx.participant.id}`,
    envelopeRef: ctx.request.envelopeRef,
    revision: null,
    type: 'participant.viewed',
    participantId: ctx.participant.id,
    reason: null,
    ip: seen.ip,
    userAgent: seen.userAgent,
    values: {},
    occurredAt: deps.clock.now(),
  });
}

export const needsOtp = (p: ParticipantRow) => p.auth === 'email_otp' && !p.otpVerifiedAt;

export async function sendOtp(deps: Deps, ctx: Extract<SignContext, { kind: 'participant' }>) {
  const code = randomDigits(6);
  const now = deps.clock.now();
  await updateParticipant(deps.db, ctx.participant.id, {
    otpHash: keyedHash(deps.secrets.hashKey, `${ctx.participant.id}:${code}`),
    otpExpiresAt: addSeconds(now, OTP_TTL_SECONDS),
    otpAttempts: 0,
    updatedAt: now,
  });
  await deps.mailer.send(otpMail(ctx.participant.email, ctx.request.title, code));
}

/** null when the code was right; otherwise the message to show. */
export async function verifyOtp(
  deps: Deps,
  ctx: Extract<SignContext, { kind: 'participant' }>,
  code: string,
  seen: { ip: string; userAgent: string | null },
) {
  const p = ctx.participant;
  const now = deps.clock.now();
  if (!p.otpHash || !p.otpExpiresAt) return ContractMessages.otpRequired;
  if (p.otpAttempts >= OTP_MAX_ATTEMPTS) return ContractMessages.otpLocked;
  if (now >= p.otpExpiresAt) return ContractMessages.otpExpired;
  const ok = safeEqual(keyedHash(deps.secrets.hashKey, `${p.id}:${code.trim()}`), p.otpHash);
  if (!ok) {
    const attempts = p.otpAttempts + 1;
    await updateParticipant(deps.db, p.id, { otpAttempts: attempts, updatedAt: now });
    return attempts >= OTP_MAX_ATTEMPTS ? ContractMessages.otpLocked : ContractMessages.otpInvalid;
  }
  await deps.db.transaction(async (tx) => {
    await updateParticipant(tx, p.id, { otpVerifiedAt: now, otpHash: null, updatedAt: now });
    await addAudit(tx, {
      requestId: p.requestId,
      participantId: p.id,
      type: 'participant.otp_verified',
      at: now,
      ip: seen.ip,
      userAgent: seen.userAgent,
    });
  });
  return null;
}

/** Reports what the participant did to the provider (the notification then moves the statuses). */
export async function reportToProvider(
  deps: Deps,
  ctx: Extract<SignContext, { kind: 'participant' }>,
  type: 'participant.viewed' | 'participant.signed' | 'participant.declined',
  extra: { values?: Record<string, string>; reason?: string | null; ip: string; userAgent: string | null },
) {
  if (!ctx.request.envelopeRef) return;
  await deps.providers.esign.reportAction({
    envelopeRef: ctx.request.envelopeRef,
    participantId: ctx.participant.id,
    type,
    values: extra.values,
    reason: extra.reason ?? null,
    ip: extra.ip,
    userAgent: extra.userAgent,
  });
}
