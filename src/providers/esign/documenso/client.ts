/**
 * Documenso's v2 API through the shared upstream client (deadline, retries for safe calls with
 * 429/503 `Retry-After` respected, breaker, `svc_upstream_*` metrics): the API token goes in the
 * `Authorization` header (docs/vendors/documenso.md, "Authentication"). Documenso's 4xx answers
 * become DocumensoApiError with its documented `{ message, code }`; the message stays in logs at
 * debug level only, never in merchant-facing errors, and no header or body is logged.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Counter } from 'prom-client';
import { Upstream, type UpstreamOptions, type UpstreamResponse } from '../../../platform/upstream';
import type { DocumensoConfig } from './config';
import type { DocumensoEnvelope, DocumensoField, DocumensoRecipient } from './mapping';

/**
 * Documenso's answers for a team at its plan's limits (AppErrorCode, answered 400 with the code in
 * `data.code` / `data.appError.code`): not a fault of the document, the call may pass later.
 */
export const LIMIT_CODES = new Set([
  'LIMIT_EXCEEDED',
  'RECIPIENT_LIMIT_EXCEEDED',
  'ENVELOPE_ITEM_LIMIT_EXCEEDED',
]);

export class DocumensoApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    /** The top-level `code` (tRPC's, e.g. BAD_REQUEST). */
    readonly code: string | null,
    /** Documenso's own error code (`data.code`, else `data.appError.code`), when it sent one. */
    readonly appCode: string | null = null,
  ) {
    super(
      `documenso ${operation}: HTTP ${status}${code ? ` (${code})` : ''}${appCode ? ` [${appCode}]` : ''}`,
    );
    this.name = 'DocumensoApiError';
  }

  /** A plan limit of the team (a retry may pass once the limit resets or the plan changes). */
  get limitExceeded(): boolean {
    return this.appCode !== null && LIMIT_CODES.has(this.appCode);
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
  private readonly errors: Counter<'upstream' | 'operation' | 'kind'> | undefined;

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
    // Created by Upstream on this registry (the metric every vendor call counts its failures in).
    this.errors = runtime.metrics.getSingleMetric('svc_upstream_errors_total') as
      | Counter<'upstream' | 'operation' | 'kind'>
      | undefined;
  }

  /** Counts a failure Documenso answered with a 4xx in `svc_upstream_errors_total` (e.g. kind `limit_exceeded`). */
  countFailure(operation: string, kind: string): void {
    this.errors?.inc({ upstream: 'documenso', operation, kind });
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
          appCode: err.appCode,
          message: err.message,
        },
        'documenso refused the call',
      );
      throw new DocumensoApiError(call.operation, res.status, err.code, err.appCode);
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

/** `{ message, code, data?: { code?, appError?: { code? } } }`: Documenso's error body (tRPC's shape). */
function errorOf(res: UpstreamResponse): {
  message: string | null;
  code: string | null;
  appCode: string | null;
} {
  const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 100) : null);
  try {
    const b = res.json<{ message?: unknown; code?: unknown; data?: unknown }>();
    const data = (typeof b.data === 'object' && b.data !== null ? b.data : {}) as {
      code?: unknown;
      appError?: unknown;
    };
    const appError = (typeof data.appError === 'object' && data.appError !== null ? data.appError : {}) as {
      code?: unknown;
    };
    return {
      message: typeof b.message === 'string' ? b.message.slice(0, 300) : null,
      code: str(b.code),
      appCode: str(data.code) ?? str(appError.code),
    };
  } catch {
    return { message: null, code: null, appCode: null };
  }
}
