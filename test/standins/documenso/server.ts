/**
 * A stand-in for Documenso, built from Documenso's documentation and v2 OpenAPI document
 * (docs/vendors/documenso.md, openapi/SOURCE.md), not from our adapter: the v2 envelope API under
 * `/api/v2` (create with files, get, distribute, redistribute, cancel, delete, signed download,
 * recipients and fields), API-token auth in `Authorization`, the signing page `/sign/{token}`
 * (Sign, or Reject with a reason) that seals the PDFs when the last recipient acts, webhooks with
 * `X-Documenso-Secret` (sent twice, held and reordered, or dropped on demand), and 429 / 5xx / slow
 * answers on demand. Every request and JSON answer is checked against the stored OpenAPI copy;
 * a request it does not allow is answered 400 and listed in `control.problems`.
 *
 *   npx tsx test/standins/documenso/server.ts --port 4030 --webhook-url http://localhost:8000/api/v1/providers/esign/documenso/notifications
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { checkRequest, checkResponse } from './openapi-check';
import { messagePage, signingPage } from './pages';
import {
  type Envelope,
  envelopeView,
  fieldView,
  type Payload,
  recipientView,
  StandinError,
  Store,
} from './store';
import { WebhookSender } from './webhooks';

export const STANDIN_API_KEY = 'api_standin0123456789abcdef';
export const STANDIN_WEBHOOK_SECRET = 'whsec-standin-0123456789abcdefghij';

export interface DocumensoStandinOptions {
  port?: number;
  apiKey?: string;
  webhookSecret?: string;
  webhookUrl?: string | null;
}

interface Failure {
  status: number;
  count: number;
  retryAfter?: string;
  path?: RegExp;
  /** Documenso's app error code, answered as its tRPC error body carries it (`data.code`, `data.appError`). */
  appCode?: string;
}

export interface DocumensoStandinControl {
  readonly store: Store;
  readonly webhooks: WebhookSender;
  /** API requests received (method, path, status, JSON body or multipart payload). */
  readonly requests: { method: string; path: string; status: number; body?: unknown }[];
  /** What the reference check found wrong, in requests received and answers given. */
  readonly problems: string[];
  /** The next `count` API requests (optionally only those whose path matches) answer `status`. */
  failNext(f: Failure): void;
  /** Every API request answers 503 until switched back. */
  setDown(down: boolean): void;
  /** Delay before every API answer. */
  setDelayMs(ms: number): void;
  /** Signs for a recipient as the signing page would (values by field id). */
  sign(envelopeId: string, recipientId: number, values?: Record<number, string>): Promise<void>;
  reject(envelopeId: string, recipientId: number, reason: string): Promise<void>;
  open(envelopeId: string, recipientId: number): Promise<void>;
}

export interface DocumensoStandin {
  /** The API base (`…/api/v2`), the value of SVC_DOCUMENSO_API_URL. */
  url: string;
  /** The web app (signing pages). */
  appUrl: string;
  control: DocumensoStandinControl;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** A multipart/form-data body's parts (RFC 7578). */
export function parseMultipart(
  body: Buffer,
  contentType: string,
): { name: string; fileName: string | null; content: Buffer }[] {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) throw new StandinError(400, 'INVALID_BODY', 'multipart boundary missing');
  const delimiter = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: { name: string; fileName: string | null; content: Buffer }[] = [];
  let pos = body.indexOf(delimiter);
  while (pos >= 0) {
    const start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headerEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? '';
    const fileName = /filename="([^"]*)"/i.exec(head)?.[1] ?? null;
    parts.push({ name, fileName, content: part.subarray(headerEnd + 4) });
    pos = next;
  }
  return parts;
}

export async function startDocumensoStandin(opts: DocumensoStandinOptions = {}): Promise<DocumensoStandin> {
  const apiKey = opts.apiKey ?? STANDIN_API_KEY;
  const store = new Store();
  const webhooks = new WebhookSender(opts.webhookUrl ?? null, opts.webhookSecret ?? STANDIN_WEBHOOK_SECRET);
  const requests: DocumensoStandinControl['requests'] = [];
  const problems: string[] = [];
  const failures: Failure[] = [];
  let down = false;
  let delayMs = 0;
  let appUrl = '';
  const legacyIds = new Map<string, number>();
  const legacyOf = (e: Envelope) => {
    if (!legacyIds.has(e.id)) legacyIds.set(e.id, legacyIds.size + 1);
    return legacyIds.get(e.id)!;
  };
  const notify = (event: string, e: Envelope) => webhooks.send(event, e, legacyOf(e));

  const signingUrlOf = (token: string) => `${appUrl}/sign/${token}`;
  const withUrls = (e: Envelope) =>
    e.recipients.map((r) => ({
      id: r.id,
      name: r.name,
      email: r.email,
      token: r.token,
      role: r.role,
      signingOrder: r.signingOrder,
      signingUrl: signingUrlOf(r.token),
    }));

  /** The API routes: [method, path pattern, handler(params, json, files)]. */
  type Handler = (
    p: string[],
    json: Record<string, unknown>,
    files: { fileName: string; content: Buffer }[],
    query: URLSearchParams,
  ) => Promise<{ status?: number; json?: unknown; pdf?: Buffer }>;
  const routes: [string, RegExp, Handler][] = [
    [
      'POST',
      /^\/envelope\/create$/,
      async (_p, json, files) => {
        const e = store.create(json.payload as Payload, files);
        await notify('DOCUMENT_CREATED', e);
        return { json: { id: e.id } };
      },
    ],
    [
      'POST',
      /^\/envelope\/distribute$/,
      async (_p, json) => {
        const e = store.envelope(String(json.envelopeId));
        store.distribute(e);
        await notify('DOCUMENT_SENT', e);
        return { json: { success: true, id: e.id, recipients: withUrls(e) } };
      },
    ],
    [
      'POST',
      /^\/envelope\/redistribute$/,
      async (_p, json) => {
        const e = store.envelope(String(json.envelopeId));
        if (e.status !== 'PENDING') throw new StandinError(400, 'INVALID_REQUEST', `Envelope is ${e.status}`);
        const ids = json.recipients as number[];
        return {
          json: { success: true, id: e.id, recipients: withUrls(e).filter((r) => ids.includes(r.id)) },
        };
      },
    ],
    [
      'POST',
      /^\/envelope\/cancel$/,
      async (_p, json) => {
        const e = store.envelope(String(json.envelopeId));
        store.cancel(e);
        await notify('DOCUMENT_CANCELLED', e);
        return { json: { success: true } };
      },
    ],
    [
      'POST',
      /^\/envelope\/delete$/,
      async (_p, json) => {
        const e = store.envelope(String(json.envelopeId));
        e.deletedAt = store.now().toISOString();
        return { json: { success: true } };
      },
    ],
    [
      'GET',
      /^\/envelope\/item\/([^/]+)\/download$/,
      async ([itemId], _json, _files, query) => {
        const { e, item } = store.item(itemId!);
        const version = query.get('version') ?? 'signed';
        if (version === 'original') return { pdf: item.original };
        if (version === 'signed') {
          if (e.status !== 'COMPLETED' || !item.signed)
            throw new StandinError(400, 'INVALID_REQUEST', 'Envelope is not completed');
          return { pdf: item.signed };
        }
        throw new StandinError(400, 'INVALID_REQUEST', `Version ${version} is not served by the stand-in`);
      },
    ],
    [
      'POST',
      /^\/envelope\/recipient\/create-many$/,
      async (_p, json) => {
        const e = store.envelope(String(json.envelopeId));
        if (e.completedAt) throw new StandinError(400, 'INVALID_REQUEST', 'Envelope already complete');
        const data = json.data as { email: string; name: string; role: 'SIGNER'; signingOrder?: number }[];
        const created = data.map((r) => store.addRecipient(e, r));
        if (e.status === 'PENDING') for (const r of created) r.sendStatus = 'SENT';
        return { json: { data: created.map(recipientView) } };
      },
    ],
    [
      'POST',
      /^\/envelope\/recipient\/delete$/,
      async (_p, json) => {
        const { e, r } = store.recipient(Number(json.recipientId));
        if (r.signingStatus !== 'NOT_SIGNED' && r.role !== 'CC')
          throw new StandinError(
            400,
            'INVALID_REQUEST',
            'Cannot modify a recipient who has already interacted with the document',
          );
        e.recipients = e.recipients.filter((x) => x.id !== r.id);
        e.fields = e.fields.filter((f) => f.recipientId !== r.id);
        return { json: { success: true } };
      },
    ],
    [
      'POST',
      /^\/envelope\/field\/create-many$/,
      async (_p, json) => {
        const e = store.envelope(String(json.envelopeId));
        const data = json.data as (Parameters<Store['addField']>[3] & {
          recipientId: number;
          envelopeItemId?: string;
        })[];
        const created = data.map((f) => {
          if (!e.recipients.some((r) => r.id === f.recipientId))
            throw new StandinError(404, 'NOT_FOUND', 'Recipient not found');
          const itemId = f.envelopeItemId ?? e.items[0]!.id;
          if (!e.items.some((i) => i.id === itemId))
            throw new StandinError(404, 'NOT_FOUND', 'Envelope item not found');
          return store.addField(e, f.recipientId, itemId, f);
        });
        return { json: { data: created.map(fieldView) } };
      },
    ],
    [
      'GET',
      /^\/envelope\/recipient\/(\d+)$/,
      async ([rid]) => ({ json: recipientView(store.recipient(Number(rid)).r) }),
    ],
    ['GET', /^\/envelope\/([^/]+)$/, async ([eid]) => ({ json: envelopeView(store.envelope(eid!)) })],
  ];

  async function api(req: IncomingMessage, res: ServerResponse, url: URL) {
    const path = url.pathname.slice('/api/v2'.length);
    const raw = await readBody(req);
    let status = 200;
    let logged: unknown;
    const answer = (s: number, json: unknown) => {
      status = s;
      const problem = checkResponse(req.method!, path, s, json);
      if (problem) problems.push(problem);
      res.writeHead(s, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    try {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      if (down) throw new StandinError(503, 'INTERNAL_SERVER_ERROR', 'Service unavailable');
      const fi = failures.findIndex((f) => !f.path || f.path.test(path));
      if (fi >= 0) {
        const f = failures[fi]!;
        if (--f.count <= 0) failures.splice(fi, 1);
        if (f.retryAfter) res.setHeader('retry-after', f.retryAfter);
        status = f.status;
        const body = f.appCode
          ? {
              message: 'You have reached the limit of your plan',
              code: 'BAD_REQUEST',
              data: {
                code: f.appCode,
                httpStatus: f.status,
                appError: {
                  code: f.appCode,
                  message: 'You have reached the limit of your plan',
                  statusCode: f.status,
                },
              },
            }
          : f.status === 429
            ? { message: 'Too many requests, please try again later.', code: 'TOO_MANY_REQUESTS' }
            : { message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' };
        res.writeHead(f.status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        return;
      }
      if (req.headers.authorization !== apiKey)
        throw new StandinError(401, 'UNAUTHORIZED', 'Authorization not provided');
      const route = routes.find(([m, re]) => m === req.method && re.test(path));
      if (!route) throw new StandinError(404, 'NOT_FOUND', 'Not found');
      let json: Record<string, unknown> = {};
      const files: { fileName: string; content: Buffer }[] = [];
      const ctype = req.headers['content-type'] ?? '';
      if (ctype.startsWith('multipart/form-data')) {
        for (const part of parseMultipart(raw, ctype)) {
          if (part.name === 'payload') {
            try {
              json.payload = JSON.parse(part.content.toString('utf8'));
            } catch {
              throw new StandinError(400, 'INVALID_BODY', 'payload is not JSON');
            }
          } else if (part.name === 'files' && part.fileName !== null)
            files.push({ fileName: part.fileName, content: part.content });
        }
        logged = json.payload;
      } else if (raw.length > 0) {
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new StandinError(400, 'INVALID_BODY', 'The body is not JSON');
        }
        logged = json;
      }
      const problem = checkRequest(req.method!, path, raw.length > 0 ? json : undefined);
      if (problem) {
        problems.push(problem);
        throw new StandinError(400, 'BAD_REQUEST', problem);
      }
      const out = await route[2](route[1].exec(path)!.slice(1), json, files, url.searchParams);
      if (out.pdf) {
        status = 200;
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(out.pdf);
      } else answer(out.status ?? 200, out.json);
    } catch (err) {
      if (err instanceof StandinError) answer(err.status, { message: err.message, code: err.code });
      else answer(500, { message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
    } finally {
      requests.push({ method: req.method!, path, status, body: logged });
    }
  }

  async function signPage(req: IncomingMessage, res: ServerResponse, token: string) {
    const html = (s: number, body: string) =>
      res.writeHead(s, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
    const found = store.byToken(token);
    if (!found) return html(404, messagePage('Not found', 'This signing link is not valid.'));
    const { e, r } = found;
    if (req.method === 'POST') {
      const form = new URLSearchParams((await readBody(req)).toString('utf8'));
      try {
        if (form.get('action') === 'reject') {
          store.reject(e, r, (form.get('reason') ?? '').trim() || 'No reason given');
          await notify('DOCUMENT_REJECTED', e);
        } else {
          const values: Record<number, string> = {};
          for (const [k, v] of form) if (k.startsWith('field_')) values[Number(k.slice(6))] = v;
          const completed = await store.sign(e, r, values);
          await notify('DOCUMENT_SIGNED', e);
          await notify('DOCUMENT_RECIPIENT_COMPLETED', e);
          if (completed) await notify('DOCUMENT_COMPLETED', e);
        }
      } catch (err) {
        if (err instanceof StandinError) return html(400, messagePage('Not possible', err.message));
        throw err;
      }
      if (e.meta.redirectUrl) return res.writeHead(303, { location: e.meta.redirectUrl }).end();
      return res.writeHead(303, { location: `/sign/${token}` }).end();
    }
    // Documenso records the opening of any recipient, CC included (viewedDocument).
    if (e.status === 'PENDING' && store.open(r)) await notify('DOCUMENT_OPENED', e);
    return html(200, signingPage(e, r, store.canAct(e, r)));
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    const done = (p: Promise<unknown>) =>
      p.catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    if (url.pathname.startsWith('/api/v2/')) return void done(api(req, res, url));
    const sign = /^\/sign\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (sign) return void done(signPage(req, res, sign[1]!));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const find = (envelopeId: string, recipientId: number) => {
    const e = store.envelope(envelopeId);
    const r = e.recipients.find((x) => x.id === recipientId);
    if (!r) throw new Error(`no recipient ${recipientId}`);
    return { e, r };
  };
  const control: DocumensoStandinControl = {
    store,
    webhooks,
    requests,
    problems,
    failNext: (f) => failures.push({ ...f }),
    setDown: (d) => {
      down = d;
    },
    setDelayMs: (ms) => {
      delayMs = ms;
    },
    async sign(envelopeId, recipientId, values = {}) {
      const { e, r } = find(envelopeId, recipientId);
      const completed = await store.sign(e, r, values);
      await notify('DOCUMENT_SIGNED', e);
      await notify('DOCUMENT_RECIPIENT_COMPLETED', e);
      if (completed) await notify('DOCUMENT_COMPLETED', e);
    },
    async reject(envelopeId, recipientId, reason) {
      const { e, r } = find(envelopeId, recipientId);
      store.reject(e, r, reason);
      await notify('DOCUMENT_REJECTED', e);
    },
    async open(envelopeId, recipientId) {
      const { e, r } = find(envelopeId, recipientId);
      if (store.open(r)) await notify('DOCUMENT_OPENED', e);
    },
  };
  return {
    url: `${appUrl}/api/v2`,
    appUrl,
    control,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '4030' }, 'webhook-url': { type: 'string' } },
  });
  const s = await startDocumensoStandin({
    port: Number(values.port),
    webhookUrl: values['webhook-url'] ?? null,
  });
  console.log(
    `Documenso stand-in: API ${s.url} (Authorization: ${STANDIN_API_KEY}), webhook secret ${STANDIN_WEBHOOK_SECRET}`,
  );
}
