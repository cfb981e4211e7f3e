import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';

/** A stored file sent as a download: never rendered inline, never cached, its name reduced to safe characters. */
export function sendDownload(
  reply: FastifyReply,
  f: { fileName: string; contentType: string; content: Buffer },
) {
  return reply
    .header('content-type', f.contentType)
    .header('content-disposition', `attachment; filename="${f.fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(f.content);
}

export function sendPdf(reply: FastifyReply, f: { fileName: string; content: Buffer }) {
  return sendDownload(reply, { ...f, contentType: 'application/pdf' });
}

/** The media types of file answers, as the document lists them (what the routes really send). */
export const MEDIA = {
  pdf: ['application/pdf'],
  csv: ['text/csv'],
  /** Verification documents a provider returns. */
  verificationFile: ['application/pdf', 'image/png', 'image/jpeg'],
} as const;

/**
 * A file answer (200) as the OpenAPI document shows it: under each media type the route really
 * sends, so a generated client reads bytes or text instead of parsing JSON.
 */
export function fileResponse(
  description: string,
  mediaTypes: readonly string[],
  kind: 'binary' | 'text' = 'binary',
) {
  const schema = kind === 'text' ? Type.String() : Type.String({ format: 'binary' });
  return { description, content: Object.fromEntries(mediaTypes.map((t) => [t, { schema }])) };
}
