/**
 * The stand-in's envelopes, as Documenso's v2 documentation describes them (docs/vendors/documenso.md):
 * an envelope (DRAFT, PENDING, COMPLETED, REJECTED, CANCELLED) with envelope items (the PDFs),
 * recipients (role, signing order, token, read/signing/send status, signedAt, rejectionReason) and
 * fields placed by page percentages. Signing stamps the fields into the PDFs with pdf-lib and seals
 * them when the last recipient who acts has signed; the sealed bytes depend only on the envelope
 * (fixed dates), so a test can compare them byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

export type Status = 'DRAFT' | 'PENDING' | 'COMPLETED' | 'REJECTED' | 'CANCELLED';
export type Role = 'CC' | 'SIGNER' | 'VIEWER' | 'APPROVER' | 'ASSISTANT';

export interface Recipient {
  id: number;
  envelopeId: string;
  email: string;
  name: string;
  token: string;
  role: Role;
  signingOrder: number | null;
  readStatus: 'NOT_OPENED' | 'OPENED';
  signingStatus: 'NOT_SIGNED' | 'SIGNED' | 'REJECTED';
  sendStatus: 'NOT_SENT' | 'SENT';
  signedAt: string | null;
  rejectionReason: string | null;
  /** Set at distribution for every recipient but CC (the envelope's expiration period); null: never. */
  expiresAt: string | null;
}

/** Documenso's `envelopeExpirationPeriod` (null or absent: the default, 3 months). */
export type ExpirationPeriod =
  | { unit: 'day' | 'week' | 'month' | 'year'; amount: number }
  | { disabled: true }
  | null;

/** A recipient the team adds to every envelope it creates (Documenso's team "default recipients"). */
export interface DefaultRecipient {
  email: string;
  name: string;
  role: Role;
}

export interface Field {
  id: number;
  secondaryId: string;
  envelopeId: string;
  envelopeItemId: string;
  recipientId: number;
  type: string;
  page: number;
  positionX: number;
  positionY: number;
  width: number;
  height: number;
  customText: string;
  inserted: boolean;
  fieldMeta: Record<string, unknown> | null;
}

export interface Item {
  id: string;
  envelopeId: string;
  documentDataId: string;
  title: string;
  order: number;
  original: Buffer;
  signed: Buffer | null;
}

export interface Envelope {
  id: string;
  secondaryId: string;
  status: Status;
  title: string;
  externalId: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  deletedAt: string | null;
  meta: {
    id: string;
    signingOrder: 'PARALLEL' | 'SEQUENTIAL';
    distributionMethod: 'EMAIL' | 'NONE';
    subject: string | null;
    message: string | null;
    redirectUrl: string | null;
    envelopeExpirationPeriod: ExpirationPeriod;
  };
  items: Item[];
  recipients: Recipient[];
  fields: Field[];
}

export class StandinError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const id = (prefix: string, n = 16) => `${prefix}${randomBytes(n).toString('hex').slice(0, n)}`;

export class Store {
  readonly envelopes = new Map<string, Envelope>();
  private nextRecipient = 100;
  private nextField = 1000;
  private nextLegacy = 1;
  /** The clock of the stand-in (a test may fix it). */
  now: () => Date = () => new Date();
  /** The team's default recipients, added to every envelope created (none unless a test sets some). */
  defaultRecipients: DefaultRecipient[] = [];

  envelope(envelopeId: string): Envelope {
    const e = this.envelopes.get(envelopeId);
    if (!e || e.deletedAt) throw new StandinError(404, 'NOT_FOUND', 'Envelope not found');
    return e;
  }

  recipient(recipientId: number): { e: Envelope; r: Recipient } {
    for (const e of this.envelopes.values()) {
      if (e.deletedAt) continue;
      const r = e.recipients.find((x) => x.id === recipientId);
      if (r) return { e, r };
    }
    throw new StandinError(404, 'NOT_FOUND', 'Recipient not found');
  }

  byToken(token: string): { e: Envelope; r: Recipient } | null {
    for (const e of this.envelopes.values()) {
      const r = e.recipients.find((x) => x.token === token);
      if (r && !e.deletedAt) return { e, r };
    }
    return null;
  }

  item(itemId: string): { e: Envelope; item: Item } {
    for (const e of this.envelopes.values()) {
      const item = e.items.find((x) => x.id === itemId);
      if (item && !e.deletedAt) return { e, item };
    }
    throw new StandinError(404, 'NOT_FOUND', 'Envelope item not found');
  }

  create(payload: Payload, files: { fileName: string; content: Buffer }[]): Envelope {
    if (files.length === 0) throw new StandinError(400, 'INVALID_BODY', 'At least one file is required');
    for (const f of files)
      if (f.content.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new StandinError(400, 'INVALID_BODY', `File ${f.fileName} is not a PDF`);
    const now = this.now().toISOString();
    const envelopeId = id('envelope_');
    const e: Envelope = {
      id: envelopeId,
      secondaryId: `document_${this.nextLegacy++}`,
      status: 'DRAFT',
      title: payload.title,
      externalId: payload.externalId ?? null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      deletedAt: null,
      meta: {
        id: id('meta_'),
        signingOrder: payload.meta?.signingOrder ?? 'PARALLEL',
        distributionMethod: payload.meta?.distributionMethod ?? 'EMAIL',
        subject: payload.meta?.subject ?? null,
        message: payload.meta?.message ?? null,
        redirectUrl: payload.meta?.redirectUrl ?? null,
        envelopeExpirationPeriod: payload.meta?.envelopeExpirationPeriod ?? null,
      },
      items: files.map((f, i) => ({
        id: id('envelope_item_'),
        envelopeId,
        documentDataId: id('doc_data_'),
        title: f.fileName,
        order: i + 1,
        original: f.content,
        signed: null,
      })),
      recipients: [],
      fields: [],
    };
    for (const r of payload.recipients ?? []) {
      const rec = this.addRecipient(e, r);
      for (const f of r.fields ?? []) {
        const item =
          typeof f.identifier === 'number'
            ? e.items[f.identifier]
            : f.identifier === undefined
              ? e.items[0]
              : e.items.find((x) => x.title === f.identifier);
        if (!item) throw new StandinError(400, 'INVALID_BODY', `No uploaded file ${String(f.identifier)}`);
        this.addField(e, rec.id, item.id, f);
      }
    }
    for (const d of this.defaultRecipients)
      if (!e.recipients.some((x) => x.email === d.email.toLowerCase())) this.addRecipient(e, d);
    this.envelopes.set(envelopeId, e);
    return e;
  }

  addRecipient(
    e: Envelope,
    r: { email: string; name: string; role: Role; signingOrder?: number },
  ): Recipient {
    const rec: Recipient = {
      id: this.nextRecipient++,
      envelopeId: e.id,
      email: r.email.toLowerCase(),
      name: r.name,
      token: randomBytes(16).toString('base64url'),
      role: r.role,
      signingOrder: r.signingOrder ?? null,
      readStatus: 'NOT_OPENED',
      signingStatus: r.role === 'CC' ? 'SIGNED' : 'NOT_SIGNED',
      sendStatus: r.role === 'CC' ? 'SENT' : 'NOT_SENT',
      signedAt: null,
      rejectionReason: null,
      expiresAt: null,
    };
    e.recipients.push(rec);
    return rec;
  }

  addField(e: Envelope, recipientId: number, envelopeItemId: string, f: FieldInput): Field {
    const n = this.nextField++;
    const field: Field = {
      id: n,
      secondaryId: `field_${n}`,
      envelopeId: e.id,
      envelopeItemId,
      recipientId,
      type: f.type,
      page: f.page,
      positionX: f.positionX,
      positionY: f.positionY,
      width: f.width,
      height: f.height,
      customText: '',
      inserted: false,
      fieldMeta: f.fieldMeta ?? null,
    };
    e.fields.push(field);
    return field;
  }

  /** Documenso's rule at distribution: every SIGNER needs a signature field. */
  distribute(e: Envelope): void {
    if (e.status !== 'DRAFT')
      throw new StandinError(400, 'INVALID_REQUEST', 'Envelope has already been sent');
    for (const r of e.recipients)
      if (r.role === 'SIGNER' && !e.fields.some((f) => f.recipientId === r.id && f.type === 'SIGNATURE'))
        throw new StandinError(400, 'INVALID_REQUEST', `Signer ${r.email} has no signature field`);
    e.status = 'PENDING';
    // Documenso's send: every recipient but CC who has not acted gets expiresAt = now + the period.
    const expiresAt = resolveExpiresAt(e.meta.envelopeExpirationPeriod, this.now());
    for (const r of e.recipients) {
      r.sendStatus = 'SENT';
      if (r.role !== 'CC' && r.signingStatus === 'NOT_SIGNED') r.expiresAt = expiresAt;
    }
    e.updatedAt = this.now().toISOString();
  }

  /** Whether a recipient may act now (sequential envelopes: every earlier acting recipient has signed). */
  canAct(e: Envelope, r: Recipient): boolean {
    if (e.status !== 'PENDING' || r.role === 'CC' || r.signingStatus !== 'NOT_SIGNED') return false;
    // An expired recipient can neither sign nor reject.
    if (r.expiresAt && new Date(r.expiresAt) <= this.now()) return false;
    if (e.meta.signingOrder !== 'SEQUENTIAL') return true;
    return e.recipients.every(
      (x) =>
        x.role === 'CC' ||
        x === r ||
        (x.signingOrder ?? 0) >= (r.signingOrder ?? 0) ||
        x.signingStatus === 'SIGNED',
    );
  }

  open(r: Recipient): boolean {
    if (r.readStatus === 'OPENED') return false;
    r.readStatus = 'OPENED';
    return true;
  }

  /** Signs (approves, or a viewer marks viewed) with the typed values; seals when the last one acts. */
  async sign(e: Envelope, r: Recipient, values: Record<number, string>): Promise<boolean> {
    if (!this.canAct(e, r)) throw new StandinError(400, 'INVALID_REQUEST', 'Recipient cannot sign now');
    const at = this.now().toISOString();
    for (const f of e.fields.filter((x) => x.recipientId === r.id)) {
      const v =
        values[f.id] ??
        (f.type === 'NAME'
          ? r.name
          : f.type === 'EMAIL'
            ? r.email
            : f.type === 'DATE'
              ? at.slice(0, 10)
              : f.type === 'SIGNATURE' || f.type === 'INITIALS'
                ? r.name
                : typeof f.fieldMeta?.text === 'string'
                  ? f.fieldMeta.text
                  : '');
      f.customText = v;
      f.inserted = v !== '';
    }
    r.readStatus = 'OPENED';
    r.signingStatus = 'SIGNED';
    r.signedAt = at;
    e.updatedAt = at;
    const done = e.recipients.every((x) => x.role === 'CC' || x.signingStatus === 'SIGNED');
    if (!done) return false;
    e.status = 'COMPLETED';
    e.completedAt = at;
    for (const item of e.items) item.signed = await seal(e, item);
    return true;
  }

  reject(e: Envelope, r: Recipient, reason: string): void {
    if (!this.canAct(e, r)) throw new StandinError(400, 'INVALID_REQUEST', 'Recipient cannot reject now');
    r.readStatus = 'OPENED';
    r.signingStatus = 'REJECTED';
    r.rejectionReason = reason;
    e.status = 'REJECTED';
    e.updatedAt = this.now().toISOString();
  }

  cancel(e: Envelope): void {
    if (e.status !== 'PENDING') throw new StandinError(400, 'INVALID_REQUEST', `Envelope is ${e.status}`);
    e.status = 'CANCELLED';
    e.updatedAt = this.now().toISOString();
  }
}

/** Documenso's resolveExpiresAt: null or absent is 3 months, `{ disabled: true }` never. */
export function resolveExpiresAt(period: ExpirationPeriod, now: Date): string | null {
  if (period && 'disabled' in period) return null;
  const p = period ?? { unit: 'month' as const, amount: 3 };
  const d = new Date(now);
  if (p.unit === 'day') d.setUTCDate(d.getUTCDate() + p.amount);
  else if (p.unit === 'week') d.setUTCDate(d.getUTCDate() + 7 * p.amount);
  else if (p.unit === 'month') d.setUTCMonth(d.getUTCMonth() + p.amount);
  else d.setUTCFullYear(d.getUTCFullYear() + p.amount);
  return d.toISOString();
}

/** The stamped, sealed PDF: every inserted field drawn in its box, then a signing-certificate page. */
async function seal(e: Envelope, item: Item): Promise<Buffer> {
  const doc = await PDFDocument.load(item.original, { updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = doc.getPages();
  for (const f of e.fields.filter((x) => x.envelopeItemId === item.id && x.inserted)) {
    const page = pages[f.page - 1];
    if (!page) continue;
    const { width, height } = page.getSize();
    const text = f.type === 'CHECKBOX' ? 'X' : f.customText.replace(/[^\x20-\x7e]/g, '?');
    page.drawText(text, {
      x: (f.positionX / 100) * width + 2,
      y: height - ((f.positionY + f.height) / 100) * height + 2,
      size: 10,
      font,
      color: rgb(0.1, 0.1, 0.5),
    });
  }
  const cert = doc.addPage([595.28, 841.89]);
  let y = 790;
  for (const line of [
    'Signing certificate (Documenso stand-in)',
    `Envelope ${e.id}: ${e.title}`,
    ...e.recipients.map((r) => `${r.role} ${r.name} <${r.email}> ${r.signingStatus} ${r.signedAt ?? ''}`),
  ]) {
    cert.drawText(line.replace(/[^\x20-\x7e]/g, '?'), { x: 50, y, size: 10, font });
    y -= 16;
  }
  const at = new Date(e.completedAt ?? e.updatedAt);
  doc.setProducer('Documenso stand-in');
  doc.setCreationDate(at);
  doc.setModificationDate(at);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

export interface FieldInput {
  type: string;
  page: number;
  positionX: number;
  positionY: number;
  width: number;
  height: number;
  fieldMeta?: Record<string, unknown>;
  identifier?: string | number;
}

export interface Payload {
  title: string;
  type: 'DOCUMENT' | 'TEMPLATE';
  externalId?: string;
  recipients?: { email: string; name: string; role: Role; signingOrder?: number; fields?: FieldInput[] }[];
  meta?: {
    signingOrder?: 'PARALLEL' | 'SEQUENTIAL';
    distributionMethod?: 'EMAIL' | 'NONE';
    subject?: string;
    message?: string;
    redirectUrl?: string;
    envelopeExpirationPeriod?: ExpirationPeriod;
  };
}

/** The envelope as GET /envelope/{envelopeId} answers it (Documenso's `ZEnvelopeSchema`). */
export function envelopeView(e: Envelope) {
  return {
    internalVersion: 2,
    type: 'DOCUMENT',
    status: e.status,
    source: 'DOCUMENT',
    visibility: 'EVERYONE',
    templateType: 'PRIVATE',
    id: e.id,
    secondaryId: e.secondaryId,
    externalId: e.externalId,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    completedAt: e.completedAt,
    deletedAt: e.deletedAt,
    title: e.title,
    authOptions: null,
    formValues: null,
    publicTitle: '',
    publicDescription: '',
    userId: 1,
    teamId: 1,
    folderId: null,
    templateId: null,
    documentMeta: {
      id: e.meta.id,
      signingOrder: e.meta.signingOrder,
      distributionMethod: e.meta.distributionMethod,
      subject: e.meta.subject,
      message: e.meta.message,
      timezone: 'Etc/UTC',
      dateFormat: 'yyyy-MM-dd hh:mm a',
      redirectUrl: e.meta.redirectUrl,
      typedSignatureEnabled: true,
      uploadSignatureEnabled: true,
      drawSignatureEnabled: true,
      allowDictateNextSigner: false,
      language: 'en',
      emailSettings: null,
      emailId: null,
      emailReplyTo: null,
      envelopeExpirationPeriod: e.meta.envelopeExpirationPeriod,
    },
    recipients: e.recipients.map(recipientView),
    fields: e.fields.map(fieldView),
    envelopeItems: e.items.map((i) => ({
      envelopeId: i.envelopeId,
      documentDataId: i.documentDataId,
      id: i.id,
      title: i.title,
      order: i.order,
    })),
    directLink: null,
    team: { id: 1, url: 'standin-team' },
    user: { id: 1, name: 'Stand-in Owner', email: 'owner@standin.test' },
  };
}

export function recipientView(r: Recipient) {
  return {
    envelopeId: r.envelopeId,
    role: r.role,
    readStatus: r.readStatus,
    signingStatus: r.signingStatus,
    sendStatus: r.sendStatus,
    id: r.id,
    email: r.email,
    name: r.name,
    token: r.token,
    documentDeletedAt: null,
    expired: null,
    expiresAt: r.expiresAt,
    expirationNotifiedAt: null,
    signedAt: r.signedAt,
    authOptions: null,
    signingOrder: r.signingOrder,
    rejectionReason: r.rejectionReason,
  };
}

export function fieldView(f: Field) {
  // Documenso stores positions as decimals and serialises them as strings.
  return {
    ...f,
    positionX: String(f.positionX),
    positionY: String(f.positionY),
    width: String(f.width),
    height: String(f.height),
  };
}
