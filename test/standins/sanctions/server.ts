/**
 * A stand-in for the sanctions lists' file servers (OFAC's Sanctions List Service, the FCDO, the UN,
 * the EU's FSF): it serves the small files of test/fixtures/sanctions over HTTP as the publishers
 * publish files, with the HTTP validators of RFC 9110 (a strong `ETag` and `Last-Modified`, and
 * `304 Not Modified` to a conditional GET whose `If-None-Match` or `If-Modified-Since` still holds),
 * and faults on demand: 429 with `Retry-After`, 503 with or without it, a slow answer that stalls past the loader's
 * deadline, and a truncated body (shorter than its `Content-Length`).
 *
 *   npx tsx test/standins/sanctions/server.ts --port 4030 --file un.xml=test/fixtures/sanctions/un-consolidated.xml
 *
 * Tests import `startSanctionsStandin()`, which returns its URL and a control handle.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

export type Fault = 'too_many_requests' | 'server_error' | 'unavailable_retry_after' | 'slow' | 'truncated';

export interface ServedRequest {
  path: string;
  userAgent: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  /** What was answered: a status, or a fault's name. */
  answer: number | Fault;
}

interface Published {
  body: Buffer;
  etag: string;
  lastModified: string;
}

export interface SanctionsStandin {
  url: string;
  /** Publishes (or replaces) the file at `path`, modified at `at`. */
  publish(path: string, body: Buffer | string, at?: Date): void;
  /** The next requests answer these faults, in order (then the file again). */
  fail(...faults: Fault[]): void;
  /** The `Retry-After` of 429 and `unavailable_retry_after` (delta-seconds or an HTTP date; default 60). */
  retryAfter: string;
  requests: ServedRequest[];
  close(): Promise<void>;
}

export async function startSanctionsStandin(
  opts: { port?: number; slowMs?: number } = {},
): Promise<SanctionsStandin> {
  const files = new Map<string, Published>();
  const faults: Fault[] = [];
  const requests: ServedRequest[] = [];
  const slowMs = opts.slowMs ?? 5_000;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const seen: Omit<ServedRequest, 'answer'> = {
      path,
      userAgent: req.headers['user-agent'],
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
    };
    const log = (answer: ServedRequest['answer']) => requests.push({ ...seen, answer });
    const file = files.get(path);
    if (!file || req.method !== 'GET') {
      log(404);
      return res.writeHead(404).end();
    }
    const fault = faults.shift();
    if (fault === 'too_many_requests') {
      log(fault);
      return res.writeHead(429, { 'retry-after': handle.retryAfter }).end('Too Many Requests');
    }
    if (fault === 'unavailable_retry_after') {
      log(fault);
      return res.writeHead(503, { 'retry-after': handle.retryAfter }).end('Service Unavailable');
    }
    if (fault === 'server_error') {
      log(fault);
      return res.writeHead(503).end('Service Unavailable');
    }
    if (fault === 'slow') {
      log(fault);
      res.writeHead(200, { 'content-length': String(file.body.length), etag: file.etag });
      res.write(file.body.subarray(0, 64));
      const t = setTimeout(() => res.end(file.body.subarray(64)), slowMs);
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (fault === 'truncated') {
      log(fault);
      res.writeHead(200, { 'content-length': String(file.body.length), etag: file.etag });
      res.write(file.body.subarray(0, Math.floor(file.body.length / 2)));
      return setTimeout(() => res.destroy(), 10);
    }
    // RFC 9110 13.1.2 / 13.1.3: If-None-Match takes precedence; If-Modified-Since otherwise.
    const inm = seen.ifNoneMatch;
    const notModified = inm
      ? inm.split(',').some((t) => t.trim() === file.etag || t.trim() === '*')
      : seen.ifModifiedSince !== undefined &&
        Date.parse(seen.ifModifiedSince) >= Date.parse(file.lastModified);
    if (notModified) {
      log(304);
      return res.writeHead(304, { etag: file.etag, 'last-modified': file.lastModified }).end();
    }
    log(200);
    res
      .writeHead(200, {
        'content-type': 'application/xml',
        'content-length': String(file.body.length),
        etag: file.etag,
        'last-modified': file.lastModified,
      })
      .end(file.body);
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const handle: SanctionsStandin = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    retryAfter: '60',
    publish(path, body, at = new Date()) {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
      files.set(path.startsWith('/') ? path : `/${path}`, {
        body: bytes,
        etag: `"${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}"`,
        lastModified: new Date(Math.floor(at.getTime() / 1000) * 1000).toUTCString(),
      });
    },
    fail(...f) {
      faults.push(...f);
    },
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return handle;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '4030' }, file: { type: 'string', multiple: true } },
  });
  const s = await startSanctionsStandin({ port: Number(values.port) });
  for (const f of values.file ?? []) {
    const [name, path] = f.split('=');
    s.publish(name!, readFileSync(path!));
  }
  console.log(`sanctions lists stand-in at ${s.url}`);
}
