/**
 * The one place that sends webhook HTTP requests: undici, no redirects followed, a hard deadline
 * covering connect + headers (a 2xx must arrive within it), a capped response-body read, and in
 * production the SSRF guard (IP literals checked here, host names checked inside the connect lookup).
 */
import net from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import {
  ForbiddenTargetError,
  guardedLookupFor,
  hostOf,
  isForbiddenAddress,
  type PrivateTargetAllowance,
  parseWebhookUrl,
} from './ssrf';

export interface SendResult {
  /** HTTP status when a response arrived in time; null on network error or timeout. */
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  /** First bytes of the response body (for the attempt history). */
  bodySnippet: string | null;
  error: string | null;
  durationMs: number;
  /** True when the request was refused before any byte was sent (bad or forbidden target). */
  refused: boolean;
}

export interface HttpSenderOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  /** Production: refuse non-public targets. */
  guardPrivateNetworks: boolean;
  /** Private targets the operator allows despite the guard (SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS). */
  allowedPrivateTargets?: PrivateTargetAllowance | null;
  /** Max sockets per origin. */
  connectionsPerOrigin: number;
}

export interface HttpSender {
  post(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

/** The same guarded client with a choice of method (workflow http steps send GET too). */
export interface HttpClient extends HttpSender {
  send(
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string>,
    body: string | null,
  ): Promise<SendResult>;
}

const SNIPPET_BYTES = 1024;

function describeError(
  err: unknown,
  timedOut: boolean,
  timeoutMs: number,
): { error: string; refused: boolean } {
  if (timedOut) return { error: `timeout: no response within ${timeoutMs} ms`, refused: false };
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (
    err instanceof ForbiddenTargetError ||
    code === 'EFORBIDDENTARGET' ||
    e?.cause instanceof ForbiddenTargetError
  )
    return { error: `refused: ${(e.cause as Error | undefined)?.message ?? e.message}`, refused: true };
  if (code === 'ECONNREFUSED') return { error: 'connection refused', refused: false };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { error: 'host not found', refused: false };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return { error: 'connection reset', refused: false };
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return { error: `timeout: no response within ${timeoutMs} ms`, refused: false };
  return { error: `request failed: ${code ?? e?.message ?? 'unknown error'}`.slice(0, 300), refused: false };
}

export function createHttpSender(opts: HttpSenderOptions): HttpClient {
  const agent = new Agent({
    connections: opts.connectionsPerOrigin,
    connect: {
      timeout: opts.timeoutMs,
      ...(opts.guardPrivateNetworks
        ? { lookup: guardedLookupFor(opts.allowedPrivateTargets ?? null) as never }
        : {}),
    },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 4000,
  });

  const client: HttpClient = {
    post: (url, headers, body) => client.send('POST', url, headers, body),
    async send(method, url, headers, body) {
      const started = performance.now();
      const u = parseWebhookUrl(url);
      if (!u)
        return {
          status: null,
          headers: {},
          bodySnippet: null,
          error: 'refused: not an http(s) URL',
          durationMs: 0,
          refused: true,
        };
      if (
        opts.guardPrivateNetworks &&
        net.isIP(hostOf(u)) !== 0 &&
        isForbiddenAddress(hostOf(u), opts.allowedPrivateTargets)
      )
        return {
          status: null,
          headers: {},
          bodySnippet: null,
          error: `refused: address ${hostOf(u)} is not allowed`,
          durationMs: 0,
          refused: true,
        };
      return dispatchOnce(agent, opts, method, u, headers, body, started);
    },
    close: () => agent.close(),
  };
  return client;
}

/**
 * One request through undici's dispatcher API: the status and headers settle the verdict, the body
 * is kept up to `maxResponseBytes` for the history, and nothing else is built per request (the
 * `request()` API adds an AbortSignal, a Readable body stream and an async iterator per call, which
 * were a sixth of the delivery worker's time in the drain profile of issue 12).
 */
function dispatchOnce(
  agent: Agent,
  opts: HttpSenderOptions,
  method: 'GET' | 'POST',
  u: URL,
  headers: Record<string, string>,
  body: string | null,
  started: number,
): Promise<SendResult> {
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | null = null;
    let status: number | null = null;
    let responseHeaders: SendResult['headers'] = {};
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const answered = () =>
      finish({
        status,
        headers: responseHeaders,
        bodySnippet:
          chunks.length === 0 ? null : Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8'),
        error: null,
        refused: false,
      });
    const failed = (err: unknown, timedOut: boolean) =>
      finish({
        status: null,
        headers: {},
        bodySnippet: null,
        ...describeError(err, timedOut, opts.timeoutMs),
      });
    // One deadline for connect + headers (the verdict), then a fresh one for the capped body read.
    // Settled before the abort, whose error (reported synchronously) then changes nothing.
    const deadlineAt = Date.now() + opts.timeoutMs;
    let deadline = setTimeout(() => {
      failed(null, true);
      controller?.abort(new Error('deadline'));
    }, opts.timeoutMs);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        // Still queued when the deadline passed: it must not be sent late. The clock is read too: a
        // connection freed by another request's deadline can start this one in the same turn of the
        // event loop, before this request's own timer has run.
        if (!settled && Date.now() >= deadlineAt) failed(null, true);
        if (settled) c.abort(new Error('deadline'));
      },
      onResponseStart(c, statusCode, h) {
        if (settled) return c.abort(new Error('deadline'));
        status = statusCode;
        responseHeaders = h as SendResult['headers'];
        clearTimeout(deadline);
        deadline = setTimeout(() => {
          c.abort(new Error('body read timeout'));
          answered();
        }, opts.timeoutMs);
      },
      onResponseData(c, chunk) {
        if (settled) return;
        size += chunk.length;
        if (size > opts.maxResponseBytes) {
          const keep = chunk.subarray(0, Math.max(0, chunk.length - (size - opts.maxResponseBytes)));
          if (keep.length) chunks.push(keep);
          c.abort(new Error('response body over the cap'));
          answered();
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        answered();
      },
      onResponseError(_c, err) {
        // A truncated or slow body does not change the verdict once the status is in.
        if (status !== null) return answered();
        failed(err, false);
      },
    };
    try {
      agent.dispatch(
        {
          origin: u.origin,
          path: `${u.pathname}${u.search}`,
          method,
          headers,
          body: body ?? undefined,
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
        },
        handler,
      );
    } catch (err) {
      handler.onResponseError?.(null as never, err as Error);
    }
  });
}
