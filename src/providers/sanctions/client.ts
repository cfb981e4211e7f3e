/**
 * Reads a list's published file: a GET of its URL (with a deadline, a size limit and the User-Agent
 * OFAC's Sanctions List Service requires) or a read of a local file. A download that stops early
 * (a shorter body than its Content-Length, a reset) fails here; a file cut at its source fails in
 * the parser, which refuses XML that does not close.
 */
import { readFile, stat } from 'node:fs/promises';
import { parseRetryAfter } from '../../platform/upstream';
import type { ListSource } from './config';

export class ListFetchError extends Error {
  /** The server's `Retry-After` (429 or 503), in milliseconds, uncapped. */
  readonly retryAfterMs?: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(message, options);
    this.name = 'ListFetchError';
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** The HTTP validators (RFC 9110, 8.8) of the file the current version was read from. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** A file read in full with its validators, or the server's word that it did not change (304). */
export type Fetched = { kind: 'file'; bytes: Buffer; validators: Validators } | { kind: 'not_modified' };

const USER_AGENT = 'svc-payments sanctions-lists loader';

/**
 * Reads the file. With the validators of the current version's download, the GET is conditional
 * (`If-None-Match`, `If-Modified-Since`): a `304 Not Modified` means the list did not change, and it
 * is neither downloaded nor parsed again.
 */
export async function fetchListFile(
  source: ListSource['source'],
  limits: FetchLimits,
  current: Validators | null = null,
): Promise<Fetched> {
  if (source.kind === 'file') {
    const info = await stat(source.path).catch((err) => {
      throw new ListFetchError(`cannot read ${source.path}: ${(err as Error).message}`);
    });
    if (info.size > limits.maxBytes) throw new ListFetchError(`file is larger than ${limits.maxBytes} bytes`);
    return {
      kind: 'file',
      bytes: await readFile(source.path),
      validators: { etag: null, lastModified: null },
    };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: 'application/xml, text/xml, */*',
    };
    if (current?.etag) headers['if-none-match'] = current.etag;
    if (current?.lastModified) headers['if-modified-since'] = current.lastModified;
    const res = await fetch(source.url, { headers, redirect: 'follow', signal: controller.signal });
    if (res.status === 304 && current) {
      await res.body?.cancel();
      return { kind: 'not_modified' };
    }
    if (res.status === 429 || res.status === 503) {
      // RFC 9110 10.2.3 (503) and RFC 6585 4 (429): how long to wait, in seconds or as a date.
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after') ?? undefined, Date.now());
      await res.body?.cancel();
      throw new ListFetchError(`HTTP ${res.status}`, { retryAfterMs });
    }
    if (!res.ok || !res.body) throw new ListFetchError(`HTTP ${res.status}`);
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (declared > limits.maxBytes) throw new ListFetchError(`file is larger than ${limits.maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > limits.maxBytes) {
        controller.abort();
        throw new ListFetchError(`file is larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
    // Content-Length counts the encoded bytes: compare only an unencoded body.
    const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
    if (!encoded && Number.isFinite(declared) && declared !== size)
      throw new ListFetchError(`download ended after ${size} of ${declared} bytes`);
    return {
      kind: 'file',
      bytes: Buffer.concat(chunks),
      validators: { etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified') },
    };
  } catch (err) {
    if (err instanceof ListFetchError) throw err;
    if (controller.signal.aborted)
      throw new ListFetchError(`no complete answer within ${limits.timeoutMs} ms`);
    throw new ListFetchError(`download failed: ${(err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
