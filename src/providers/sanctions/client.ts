/**
 * Reads a list's published file: a GET of its URL (with a deadline, a size limit and the User-Agent
 * OFAC's Sanctions List Service requires) or a read of a local file. A download that stops early
 * (a shorter body than its Content-Length, a reset) fails here; a file cut at its source fails in
 * the parser, which refuses XML that does not close.
 */
import { readFile, stat } from 'node:fs/promises';
import type { ListSource } from './config';

export class ListFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListFetchError';
  }
}

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

const USER_AGENT = 'svc-payments sanctions-lists loader';

export async function fetchListFile(source: ListSource['source'], limits: FetchLimits): Promise<Buffer> {
  if (source.kind === 'file') {
    const info = await stat(source.path).catch((err) => {
      throw new ListFetchError(`cannot read ${source.path}: ${(err as Error).message}`);
    });
    if (info.size > limits.maxBytes) throw new ListFetchError(`file is larger than ${limits.maxBytes} bytes`);
    return readFile(source.path);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    const res = await fetch(source.url, {
      headers: { 'user-agent': USER_AGENT, accept: 'application/xml, text/xml, */*' },
      redirect: 'follow',
      signal: controller.signal,
    });
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
    return Buffer.concat(chunks);
  } catch (err) {
    if (err instanceof ListFetchError) throw err;
    if (controller.signal.aborted)
      throw new ListFetchError(`no complete answer within ${limits.timeoutMs} ms`);
    throw new ListFetchError(`download failed: ${(err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
