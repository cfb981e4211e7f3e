/**
 * Documenso's v2 API through the shared upstream client (deadline, retries for safe calls with
 * 429/503 `Retry-After` respected, breaker, `svc_upstream_*` metrics): the API token goes in the
 * `Authorization` header (docs/vendors/documenso.md, "Authentication"). Documenso's 4xx answers
 * become DocumensoApiError with its documented `{ message, code }`; the message stays in logs at
 * debug level only, never in merchant-facing errors, and no header or body is logged.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Upstream, type UpstreamOptions, type UpstreamResponse } from '../../../platform/upstream';
import type { DocumensoConfig } from './config';
import type { DocumensoEnvelope, DocumensoField, DocumensoRecipient } from './mapping';

export class DocumensoApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(`documenso ${operation}: HTTP ${status}${code ? ` (${code})` : ''}`);
    this.name = 'DocumensoApiError';
  }
}

interface Call {
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  multipart?: { body: Buffer; boundary: string };
  retrySafe: boolean;
}

/** A multipart/form-data body: JSON fields first, then the files (RFC 7578). */
export function multipartBody(
  fields: Record<string, string>,
  files: { name: string; fileName: string; contentType: string; content: Buffer }[],
): { body: Buffer; boundary: string } {
  const boundary = `----svc${randomBytes(12).toString('hex')}`;
  const quote = (v: string) => v.replace(/["\r\n\\]/g, '_');
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`,
      ),
    );
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(f.name)}"; filename="${quote(f.fileName)}"\r\nContent-Type: ${f.contentType}\r\n\r\n`,
      ),
      f.content,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), boundary };
}

export class DocumensoClient {
  private readonly upstream: Upstream;

  constructor(
    private readonly config: Pick<
      DocumensoConfig,
      | 'apiUrl'
      | 'apiKey'
      | 'timeoutMs'
      | 'maxAttempts'
      | 'maxRetryAfterMs'
      | 'breakerFailures'
      | 'breakerCooldownMs'
    >,
    runtime: Pick<UpstreamOptions, 'metrics' | 'log'> & Partial<UpstreamOptions>,
    private readonly log: FastifyBaseLogger = runtime.log,
  ) {
    this.upstream = new Upstream({
      name: 'documenso',
      baseUrl: config.apiUrl,
      timeoutMs: config.timeoutMs,
      maxAttempts: config.maxAttempts,
      maxRetryAfterMs: config.maxRetryAfterMs,
      breaker: { failureThreshold: config.breakerFailures, cooldownMs: config.breakerCooldownMs },
      ...runtime,
    });
  }

  breakerState() {
    return this.upstream.breakerState();
  }

  /** The answer (2xx); 4xx throw DocumensoApiError, outages throw UpstreamError. */
  private async send(call: Call): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { authorization: this.config.apiKey };
    let body: Buffer | undefined;
    if (call.multipart) {
      body = call.multipart.body;
      headers['content-type'] = `multipart/form-data; boundary=${call.multipart.boundary}`;
    } else if (call.json !== undefined) {
      body = Buffer.from(JSON.stringify(call.json));
      headers['content-type'] = 'application/json';
    }
    const res = await this.upstream.request({
      operation: call.operation,
      method: call.method,
      path: call.path,
      headers,
      body,
      retrySafe: call.retrySafe,
    });
    if (res.status >= 400) {
      const err = errorOf(res);
      this.log.debug(
        {
          upstream: 'documenso',
          operation: call.operation,
          status: res.status,
          code: err.code,
          message: err.message,
        },
        'documenso refused the call',
      );
      throw new DocumensoApiError(call.operation, res.status, err.code);
    }
    return res;
  }

  /** POST /envelope/create (multipart: `payload` JSON and the PDFs as `files`). Not repeated: it has no idempotency key. */
  async createEnvelope(
    payload: Record<string, unknown>,
    files: { fileName: string; content: Buffer }[],
  ): Promise<{ id: string }> {
    const multipart = multipartBody(
      { payload: JSON.stringify(payload) },
      files.map((f) => ({
        name: 'files',
        fileName: f.fileName,
        contentType: 'application/pdf',
        content: f.content,
      })),
    );
    const res = await this.send({
      operation: 'envelope.create',
      method: 'POST',
      path: '/envelope/create',
      multipart,
      retrySafe: false,
    });
    return res.json<{ id: string }>();
  }

  async getEnvelope(envelopeId: string): Promise<DocumensoEnvelope> {
    const res = await this.send({
      operation: 'envelope.get',
      method: 'GET',
      path: `/envelope/${encodeURIComponent(envelopeId)}`,
      retrySafe: true,
    });
    return res.json<DocumensoEnvelope>();
  }

  /** POST /envelope/distribute: DRAFT to PENDING (no email with distributionMethod NONE). */
  async distribute(envelopeId: string): Promise<void> {
    await this.send({
      operation: 'envelope.distribute',
      method: 'POST',
      path: '/envelope/distribute',
      json: { envelopeId, meta: { distributionMethod: 'NONE' } },
      retrySafe: false,
    });
  }

  /** POST /envelope/cancel: PENDING to CANCELLED (repeating cannot do more than once). */
  async cancel(envelopeId: string, reason: string): Promise<void> {
    await this.send({
      operation: 'envelope.cancel',
      method: 'POST',
      path: '/envelope/cancel',
      json: { envelopeId, reason: reason.slice(0, 500) },
      retrySafe: true,
    });
  }

  /** POST /envelope/delete (a draft never distributed). */
  async deleteEnvelope(envelopeId: string): Promise<void> {
    await this.send({
      operation: 'envelope.delete',
      method: 'POST',
      path: '/envelope/delete',
      json: { envelopeId },
      retrySafe: true,
    });
  }

  /** GET /envelope/item/{envelopeItemId}/download?version=signed: the sealed PDF bytes. */
  async downloadSigned(envelopeItemId: string): Promise<Buffer> {
    const res = await this.send({
      operation: 'envelope.item.download',
      method: 'GET',
      path: `/envelope/item/${encodeURIComponent(envelopeItemId)}/download?version=signed`,
      retrySafe: true,
    });
    return res.body;
  }

  async getRecipient(recipientId: number): Promise<DocumensoRecipient> {
    const res = await this.send({
      operation: 'envelope.recipient.get',
      method: 'GET',
      path: `/envelope/recipient/${recipientId}`,
      retrySafe: true,
    });
    return res.json<DocumensoRecipient>();
  }

  async createRecipients(
    envelopeId: string,
    data: { email: string; name: string; role: string; signingOrder: number }[],
  ): Promise<DocumensoRecipient[]> {
    const res = await this.send({
      operation: 'envelope.recipient.create_many',
      method: 'POST',
      path: '/envelope/recipient/create-many',
      json: { envelopeId, data },
      retrySafe: false,
    });
    return res.json<{ data: DocumensoRecipient[] }>().data;
  }

  async deleteRecipient(recipientId: number): Promise<void> {
    await this.send({
      operation: 'envelope.recipient.delete',
      method: 'POST',
      path: '/envelope/recipient/delete',
      json: { recipientId },
      retrySafe: true,
    });
  }

  async createFields(
    envelopeId: string,
    data: (DocumensoField & { recipientId: number; envelopeItemId: string })[],
  ): Promise<void> {
    await this.send({
      operation: 'envelope.field.create_many',
      method: 'POST',
      path: '/envelope/field/create-many',
      json: { envelopeId, data },
      retrySafe: false,
    });
  }
}

function errorOf(res: UpstreamResponse): { message: string | null; code: string | null } {
  try {
    const b = res.json<{ message?: unknown; code?: unknown }>();
    return {
      message: typeof b.message === 'string' ? b.message.slice(0, 300) : null,
      code: typeof b.code === 'string' ? b.code : null,
    };
  } catch {
    return { message: null, code: null };
  }
}
