import type { FastifyReply } from 'fastify';

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
