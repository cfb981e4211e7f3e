/**
 * The one place that sends webhook HTTP requests: undici, no redirects followed, a hard deadline
 * covering connect + headers (a 2xx must arrive within it), a capped response-body read, and in
 * production the SSRF guard (IP literals checked here, host names checked inside the connect lookup).
 */
import net from 'node:net';
import { Agent, request } from 'undici';
import { ForbiddenTargetError, guardedLookup, hostOf, isForbiddenAddress, parseWebhookUrl } from './ssrf';

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
      ...(opts.guardPrivateNetworks ? { lookup: guardedLookup as never } : {}),
    },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 4000,
  });

  const client: HttpClient = {
    post: (url, headers, body) => client.send('POST', url, headers, body),
    async send(method, url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
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
      if (opts.guardPrivateNetworks && net.isIP(hostOf(u)) !== 0 && isForbiddenAddress(hostOf(u)))
        return {
          status: null,
          headers: {},
          bodySnippet: null,
          error: `refused: address ${hostOf(u)} is not allowed`,
          durationMs: 0,
          refused: true,
        };
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, opts.timeoutMs);
      try {
        const res = await request(u, {
          method,
          headers,
          body: body ?? undefined,
          dispatcher: agent,
          signal: controller.signal,
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
        });
        // The verdict is the status that arrived within the deadline; the body is read only for
        // the history, capped, and abandoned when it is too large or too slow.
        clearTimeout(timer);
        const snippet = await readCapped(res.body, opts.maxResponseBytes, opts.timeoutMs);
        return {
          status: res.statusCode,
          headers: res.headers,
          bodySnippet: snippet,
          error: null,
          durationMs: elapsed(),
          refused: false,
        };
      } catch (err) {
        const d = describeError(err, timedOut, opts.timeoutMs);
        return {
          status: null,
          headers: {},
          bodySnippet: null,
          error: d.error,
          durationMs: elapsed(),
          refused: d.refused,
        };
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.close(),
  };
  return client;
}

/** Reads at most `max` bytes of a response body within `timeoutMs`; returns the first bytes as text. */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  max: number,
  timeoutMs: number,
): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const deadline = setTimeout(() => body.destroy(new Error('body read timeout')), timeoutMs);
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > max) {
        const keep = chunk.subarray(0, Math.max(0, chunk.length - (size - max)));
        if (keep.length) chunks.push(keep);
        body.destroy();
        break;
      }
      chunks.push(chunk);
    }
  } catch {
    // A truncated or slow body does not change the verdict.
  } finally {
    clearTimeout(deadline);
  }
  if (chunks.length === 0) return null;
  return Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8');
}
