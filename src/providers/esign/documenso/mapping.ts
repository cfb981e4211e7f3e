/**
 * Our envelopes, participants and fields in Documenso's v2 terms, and back (docs/vendors/documenso.md
 * cites the source of every name used here). Pure functions: no I/O.
 */
import type { InboundRequest, InboundResult } from '../../capabilities';
import type { EnvelopeField, EnvelopeInput, EnvelopeSnapshot, EsignHint, EsignNotification } from '../port';

export type DocumensoRole = 'SIGNER' | 'APPROVER' | 'VIEWER' | 'CC';

/**
 * Our participant kinds as Documenso recipient roles (RecipientRole). Our viewers are Documenso CC
 * recipients: Documenso seals an envelope only once every recipient but CC has SIGNED, a VIEWER
 * included (it must "mark as viewed"), while our viewers never hold a contract open.
 */
export const ROLE_OF: Record<EnvelopeInput['participants'][number]['kind'], DocumensoRole> = {
  signer: 'SIGNER',
  approver: 'APPROVER',
  viewer: 'CC',
};

/**
 * Documenso's own expiry of recipients' links, off: at distribution it would give every non-CC
 * recipient `expiresAt` = now + this period (3 months when absent, or the team's setting), after
 * which they can neither sign nor reject. Our contracts run up to 365 days and expire themselves
 * (the envelope is then cancelled), so Documenso must never expire first.
 */
export const EXPIRATION_DISABLED = { disabled: true } as const;

/** Our field types as Documenso FieldType and its fieldMeta `type`. */
const FIELD_OF: Record<EnvelopeField['type'], { type: string; meta: string }> = {
  signature: { type: 'SIGNATURE', meta: 'signature' },
  initials: { type: 'INITIALS', meta: 'initials' },
  name: { type: 'NAME', meta: 'name' },
  email: { type: 'EMAIL', meta: 'email' },
  date_signed: { type: 'DATE', meta: 'date' },
  text: { type: 'TEXT', meta: 'text' },
  checkbox: { type: 'CHECKBOX', meta: 'checkbox' },
};

/** A page fraction (0-1) as Documenso's percentage (0-100), four decimals. */
const pct = (fraction: number) => Math.round(Math.min(1, Math.max(0, fraction)) * 1_000_000) / 10_000;

export interface DocumensoField {
  type: string;
  page: number;
  positionX: number;
  positionY: number;
  width: number;
  height: number;
  fieldMeta: Record<string, unknown>;
}

/** One field, placed by percentages of the page from its top-left corner (both systems measure from there). */
export function fieldOf(f: EnvelopeField): DocumensoField {
  const t = FIELD_OF[f.type];
  const meta: Record<string, unknown> = { type: t.meta, required: f.required };
  if (f.label) meta.label = f.label.slice(0, 255);
  if (f.type === 'text' && f.prefill !== null) {
    // The sender's value, shown and stamped as it is: the participant cannot change it.
    meta.text = f.prefill;
    meta.readOnly = true;
  }
  if (f.type === 'checkbox') meta.values = [{ id: 1, checked: false, value: f.label ?? 'Yes' }];
  return {
    type: t.type,
    page: f.page,
    positionX: pct(f.x),
    positionY: pct(f.y),
    width: pct(f.width),
    height: pct(f.height),
    fieldMeta: meta,
  };
}

/**
 * The `payload` part of POST /envelope/create: every participant as a recipient with its fields
 * (`identifier`: the index of the uploaded file), CC recipients last. Documenso sends nothing
 * (`distributionMethod: NONE`: our own emails invite, remind and copy) and its signing order is
 * PARALLEL: whose turn it is stays ours (our page hands a participant over only at their turn, and
 * viewers never block, which a sequential Documenso envelope would not promise).
 */
export function createPayload(input: EnvelopeInput): Record<string, unknown> {
  const recipients: Record<string, unknown>[] = input.participants.map((p) => ({
    email: p.email,
    name: p.name.slice(0, 255),
    role: ROLE_OF[p.kind],
    signingOrder: p.signingOrder,
    fields: input.documents.flatMap((d, identifier) =>
      d.fields.filter((f) => f.role === p.role).map((f) => ({ identifier, ...fieldOf(f) })),
    ),
  }));
  for (const c of input.cc)
    recipients.push({ email: c.email, name: (c.name ?? '').slice(0, 255), role: 'CC' });
  const meta: Record<string, unknown> = {
    distributionMethod: 'NONE',
    signingOrder: 'PARALLEL',
    envelopeExpirationPeriod: EXPIRATION_DISABLED,
  };
  if (input.redirectUrl) {
    const u = new URL(input.redirectUrl);
    u.searchParams.set('contract_request_id', input.requestId);
    meta.redirectUrl = u.toString();
  }
  return {
    type: 'DOCUMENT',
    title: input.title.slice(0, 255),
    externalId: input.requestId,
    recipients,
    meta,
  };
}

/** A recipient as GET /envelope/{envelopeId} lists it (the properties we read). */
export interface DocumensoRecipient {
  id: number;
  envelopeId: string;
  email: string;
  name: string;
  token: string;
  role: string;
  signingOrder: number | null;
  readStatus: 'NOT_OPENED' | 'OPENED';
  signingStatus: 'NOT_SIGNED' | 'SIGNED' | 'REJECTED';
  signedAt: string | null;
  rejectionReason: string | null;
  /** When the recipient's link stops working at Documenso (null: never). */
  expiresAt?: string | null;
}

export interface DocumensoEnvelope {
  id: string;
  status: 'DRAFT' | 'PENDING' | 'COMPLETED' | 'REJECTED' | 'CANCELLED';
  externalId: string | null;
  recipients: DocumensoRecipient[];
  fields: {
    recipientId: number;
    envelopeItemId: string;
    type: string;
    page: number;
    positionX: unknown;
    positionY: unknown;
  }[];
  envelopeItems: { id: string; order: number; title: string }[];
}

const placeKey = (type: string, page: number, x: unknown, y: unknown) =>
  `${type}:${page}:${Number(x).toFixed(1)}:${Number(y).toFixed(1)}`;

/**
 * Which Documenso recipient is which participant: the same email, name, role and signing order;
 * two participants alike in all four (one person in two roles of a group) are told apart by where
 * their fields are. Null when the envelope does not hold every participant.
 */
export function matchRecipients(
  input: EnvelopeInput,
  envelope: DocumensoEnvelope,
): { participantId: string; ref: string }[] | null {
  const taken = new Set<number>();
  const out: { participantId: string; ref: string }[] = [];
  for (const p of input.participants) {
    const alike = envelope.recipients.filter(
      (x) =>
        !taken.has(x.id) &&
        x.email.toLowerCase() === p.email.toLowerCase() &&
        x.name === p.name.slice(0, 255) &&
        x.role === ROLE_OF[p.kind] &&
        (x.signingOrder ?? null) === p.signingOrder,
    );
    let chosen = alike[0];
    if (alike.length > 1) {
      const ours = input.documents
        .flatMap((d) => d.fields.filter((f) => f.role === p.role).map((f) => fieldOf(f)))
        .map((f) => placeKey(f.type, f.page, f.positionX, f.positionY))
        .sort()
        .join('|');
      chosen =
        alike.find(
          (x) =>
            envelope.fields
              .filter((f) => f.recipientId === x.id)
              .map((f) => placeKey(f.type, f.page, f.positionX, f.positionY))
              .sort()
              .join('|') === ours,
        ) ?? chosen;
    }
    if (!chosen) return null;
    taken.add(chosen.id);
    out.push({ participantId: p.participantId, ref: String(chosen.id) });
  }
  return out;
}

/**
 * Recipients that act (not CC) which we did not send: a team's default recipients are added by
 * Documenso to every envelope it creates, and a SIGNER or APPROVER among them would have to act
 * before the envelope is sealed, without our knowing. Their emails, for the log.
 */
export function extraActingRecipients(
  envelope: DocumensoEnvelope,
  matched: { ref: string }[],
): DocumensoRecipient[] {
  const ours = new Set(matched.map((m) => m.ref));
  return envelope.recipients.filter((x) => x.role !== 'CC' && !ours.has(String(x.id)));
}

const STATUS_OF: Record<DocumensoEnvelope['status'], EnvelopeSnapshot['status']> = {
  DRAFT: 'draft',
  PENDING: 'pending',
  COMPLETED: 'completed',
  REJECTED: 'rejected',
  CANCELLED: 'cancelled',
};

const dateOrNull = (v: string | null) => {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

/**
 * The envelope as the port's snapshot. CC recipients (our viewers and copies) act on nothing: only
 * their opening is read (Documenso counts a CC as SIGNED from the start, which is not an act);
 * the copies' refs are no participant's and are passed over by the contracts module.
 */
export function snapshotOf(envelope: DocumensoEnvelope): EnvelopeSnapshot {
  return {
    ref: envelope.id,
    status: STATUS_OF[envelope.status] ?? 'pending',
    recipients: envelope.recipients.map((x) => {
      const acts = x.role !== 'CC';
      return {
        ref: String(x.id),
        viewed: x.readStatus === 'OPENED',
        completed: acts && x.signingStatus === 'SIGNED',
        completedAt: acts && x.signingStatus === 'SIGNED' ? dateOrNull(x.signedAt) : null,
        declined: acts && x.signingStatus === 'REJECTED',
        declineReason:
          acts && x.signingStatus === 'REJECTED' ? (x.rejectionReason?.slice(0, 500) ?? null) : null,
        expiresAt: dateOrNull(x.expiresAt ?? null),
      };
    }),
  };
}

/** The events whose envelope we read again (document events; templates and creation are not ours). */
export const HINT_EVENTS = new Set([
  'DOCUMENT_SENT',
  'DOCUMENT_OPENED',
  'DOCUMENT_SIGNED',
  'DOCUMENT_RECIPIENT_COMPLETED',
  'DOCUMENT_COMPLETED',
  'DOCUMENT_REJECTED',
  'DOCUMENT_CANCELLED',
  'RECIPIENT_EXPIRED',
  'DOCUMENT_REMINDER_SENT',
]);

export const SECRET_HEADER = 'x-documenso-secret';

/**
 * A Documenso webhook: `X-Documenso-Secret` must equal our secret (compared in constant time by
 * `secretMatches`), else 401; then the envelope it names (`payload.envelopeId`) is only a hint.
 */
export function parseWebhook(
  req: InboundRequest,
  secretMatches: (received: string) => boolean,
): InboundResult<EsignNotification, EsignHint> {
  const h = req.headers[SECRET_HEADER];
  const received = Array.isArray(h) ? h[0] : h;
  if (!received || !secretMatches(received)) return { type: 'refused', status: 401 };
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody);
  } catch {
    return { type: 'ignored' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { type: 'ignored' };
  const b = body as { event?: unknown; payload?: { envelopeId?: unknown } };
  const envelopeId = b.payload && typeof b.payload === 'object' ? b.payload.envelopeId : undefined;
  if (typeof b.event !== 'string' || typeof envelopeId !== 'string')
    return { type: 'ignored', keys: Object.keys(b).slice(0, 20) };
  // Template and creation events name nothing of ours: acknowledged, not read.
  if (!HINT_EVENTS.has(b.event)) return { type: 'ignored' };
  return { type: 'hint', hint: { envelopeRef: envelopeId } };
}
