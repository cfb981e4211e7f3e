/**
 * PDFs of the contract area, with pdf-lib: reading a document (magic bytes, page count), sealing
 * (the field values stamped at their page-relative places, an audit page appended) and the separate
 * certificate of completion. Helvetica covers WinAnsi; other characters are transliterated or '?'.
 */
import { createHash } from 'node:crypto';
import type { PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import type { ContractFieldDef } from '../../db/schema/index';

export const sha256Hex = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** pdf-lib, loaded on first use so it stays out of the memory of a node that never handles a contract. */
export const loadPdfLib = () => import('pdf-lib');

export const hasPdfMagic = (b: Buffer): boolean => b.subarray(0, 5).toString('latin1') === '%PDF-';

/** The page count, or null when the bytes are not a loadable PDF. */
export async function readPageCount(b: Buffer): Promise<number | null> {
  const { PDFDocument } = await loadPdfLib();
  try {
    const doc = await PDFDocument.load(b, { ignoreEncryption: true, updateMetadata: false });
    return doc.getPageCount();
  } catch {
    return null;
  }
}

function encoder(font: PDFFont): (text: string) => string {
  const ok = new Set(font.getCharacterSet());
  return (text) =>
    [...text.replace(/[\r\n\t]+/g, ' ')]
      .map((ch) => {
        if (ok.has(ch.codePointAt(0)!)) return ch;
        const plain = ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
        return plain !== '' && [...plain].every((c) => ok.has(c.codePointAt(0)!)) ? plain : '?';
      })
      .join('');
}

export interface SealParticipant {
  participantId: string;
  role: string;
  kind: string;
  name: string;
  email: string;
  completedAt: Date | null;
  values: Record<string, string>;
}

export interface AuditLine {
  at: Date;
  text: string;
}

export interface SealInput {
  requestId: string;
  title: string;
  fields: ContractFieldDef[];
  participants: SealParticipant[];
  audit: AuditLine[];
  originalSha256: string;
  completedAt: Date;
}

async function writeLines(doc: PDFDocument, font: PDFFont, bold: PDFFont, heading: string, lines: string[]) {
  const { rgb } = await loadPdfLib();
  const enc = encoder(font);
  let page: PDFPage = doc.addPage([595.28, 841.89]);
  let y = 790;
  page.drawText(enc(heading), { x: 50, y, size: 16, font: bold });
  y -= 30;
  for (const raw of lines) {
    const chunks = enc(raw).match(/.{1,95}/g) ?? [''];
    for (const c of chunks) {
      if (y < 50) {
        page = doc.addPage([595.28, 841.89]);
        y = 790;
      }
      page.drawText(c, { x: 50, y, size: 9, font, color: rgb(0.1, 0.1, 0.1) });
      y -= 13;
    }
  }
}

function auditLines(input: SealInput): string[] {
  return [
    `Contract request: ${input.requestId}`,
    `Title: ${input.title}`,
    `Original document SHA-256: ${input.originalSha256}`,
    `Completed at: ${input.completedAt.toISOString()}`,
    '',
    'Participants:',
    ...input.participants.map(
      (p) =>
        `- ${p.name} <${p.email}> (${p.role}, ${p.kind}) completed ${p.completedAt?.toISOString() ?? '-'}`,
    ),
    '',
    'Audit trail:',
    ...input.audit.map((a) => `${a.at.toISOString()}  ${a.text}`),
  ];
}

/** The signed PDF: every field's value stamped in its box, then an audit page. */
export async function sealPdf(original: Buffer, input: SealInput): Promise<Buffer> {
  const { PDFDocument, rgb, StandardFonts } = await loadPdfLib();
  const doc = await PDFDocument.load(original, { ignoreEncryption: true });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBoldOblique);
  const enc = encoder(font);
  const pages = doc.getPages();
  for (const f of input.fields) {
    const p = input.participants.find((x) => x.role === f.role);
    const value = p?.values[f.field_id];
    const page = pages[f.page - 1];
    if (!page || value === undefined || value === '') continue;
    const { width, height } = page.getSize();
    const boxH = f.height * height;
    const size = Math.max(6, Math.min(18, boxH * 0.6));
    const text = f.type === 'checkbox' ? (value === 'true' ? 'X' : '') : value;
    if (text === '') continue;
    const useFont = f.type === 'signature' || f.type === 'initials' ? bold : font;
    page.drawText(enc(text), {
      x: f.x * width + 2,
      y: height - (f.y + f.height) * height + (boxH - size) / 2 + 1,
      size,
      font: useFont,
      color: rgb(0.05, 0.15, 0.45),
      maxWidth: f.width * width - 4,
    });
  }
  await writeLines(doc, font, bold, 'Audit page', auditLines(input));
  doc.setTitle(input.title);
  doc.setProducer('payments-service contracts');
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** The certificate of completion: a separate PDF naming the request, the documents and the trail. */
export async function buildCertificate(
  input: SealInput,
  documents: { fileName: string; sha256: string }[],
): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await loadPdfLib();
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  await writeLines(doc, font, bold, 'Certificate of completion', [
    ...auditLines(input),
    '',
    'Signed documents:',
    ...documents.map((d) => `- ${d.fileName} SHA-256 ${d.sha256}`),
  ]);
  doc.setTitle(`Certificate of completion - ${input.title}`);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
