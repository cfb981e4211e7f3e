/**
 * Ticket attachments: decoded from base64 and typed by their bytes, never by what the caller says.
 * pdf, png and jpeg are recognised by their magic numbers (file-type); txt, csv, json and log by
 * being valid UTF-8 text without NUL bytes. The file name's extension must agree with the content.
 */
import { createHash } from 'node:crypto';
import { ValidationError, type ValidationIssue } from '../../shared/errors';

export interface AttachmentInput {
  file_name: string;
  content_base64: string;
}

export interface CheckedAttachment {
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  content: Buffer;
}

export const MAX_ATTACHMENTS = 5;

/** Allowed kinds: the content type we serve and the extensions a file of that kind may carry. */
const BINARY_KINDS: Record<string, { contentType: string; extensions: string[] }> = {
  pdf: { contentType: 'application/pdf', extensions: ['pdf'] },
  png: { contentType: 'image/png', extensions: ['png'] },
  jpg: { contentType: 'image/jpeg', extensions: ['jpg', 'jpeg'] },
};
const TEXT_KINDS: Record<string, string> = {
  txt: 'text/plain; charset=utf-8',
  log: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

export const ALLOWED_KINDS = 'pdf, png, jpeg, txt, csv, json, log';

/** Every media type an attachment is served as (without parameters), for the OpenAPI document. */
export const ATTACHMENT_MEDIA_TYPES = [
  ...new Set([
    ...Object.values(BINARY_KINDS).map((k) => k.contentType),
    ...Object.values(TEXT_KINDS).map((t) => t.split(';')[0]!),
  ]),
];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
}

function isUtf8Text(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The content type of the bytes, or a reason to refuse them. */
async function classify(
  bytes: Buffer,
  fileName: string,
): Promise<{ ok: true; contentType: string } | { ok: false; msg: string }> {
  const ext = extensionOf(fileName);
  // Loaded on first use: file-type stays out of the memory of a node that never receives an attachment.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(bytes);
  const binary = detected ? BINARY_KINDS[detected.ext] : undefined;
  if (binary) {
    if (!binary.extensions.includes(ext))
      return { ok: false, msg: `Attachment content is ${detected!.ext} but the file name ends in '.${ext}'` };
    return { ok: true, contentType: binary.contentType };
  }
  if (!isUtf8Text(bytes)) return { ok: false, msg: `Attachment type is not allowed (${ALLOWED_KINDS})` };
  const text = TEXT_KINDS[ext];
  if (!text)
    return {
      ok: false,
      msg: BINARY_KINDS[ext === 'jpeg' ? 'jpg' : ext]
        ? `Attachment content is text but the file name ends in '.${ext}'`
        : `Attachment type is not allowed (${ALLOWED_KINDS})`,
    };
  return { ok: true, contentType: text };
}

/** Decodes and checks every attachment; one 422 lists every problem with its loc. */
export async function checkAttachments(
  inputs: AttachmentInput[] | undefined,
  maxBytes: number,
  loc: (string | number)[] = ['body', 'attachments'],
): Promise<CheckedAttachment[]> {
  const out: CheckedAttachment[] = [];
  const issues: ValidationIssue[] = [];
  for (const [i, a] of (inputs ?? []).entries()) {
    const at = (field: string) => [...loc, i, field];
    const fileName = a.file_name.trim();
    if (fileName === '' || /[/\\]/.test(fileName)) {
      issues.push({
        loc: at('file_name'),
        msg: 'File name must not be empty or contain a path',
        type: 'value_error',
      });
      continue;
    }
    const data = a.content_base64.replace(/\s+/g, '');
    if (data.length % 4 !== 0 || !BASE64.test(data)) {
      issues.push({
        loc: at('content_base64'),
        msg: 'Attachment must be base64-encoded',
        type: 'value_error',
      });
      continue;
    }
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length === 0) {
      issues.push({ loc: at('content_base64'), msg: 'Attachment must not be empty', type: 'value_error' });
      continue;
    }
    if (bytes.length > maxBytes) {
      issues.push({
        loc: at('content_base64'),
        msg: `Attachment must be at most ${maxBytes} bytes`,
        type: 'value_error',
      });
      continue;
    }
    const kind = await classify(bytes, fileName);
    if (!kind.ok) {
      issues.push({ loc: at('content_base64'), msg: kind.msg, type: 'value_error' });
      continue;
    }
    out.push({
      fileName,
      contentType: kind.contentType,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      content: bytes,
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}

/** The request body limit of a route taking up to 5 attachments of `maxBytes` (base64 is 4/3) plus text. */
export function attachmentBodyLimit(maxBytes: number): number {
  return MAX_ATTACHMENTS * Math.ceil((maxBytes * 4) / 3 + 4) + 256 * 1024;
}
