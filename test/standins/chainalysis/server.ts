/**
 * A stand-in for Chainalysis, written from its public documentation (docs/vendors/chainalysis.md), not
 * from our adapter. One server, both APIs:
 *
 * - Entity Risking API under `/api/risk`: `GET /v2/entities/{address}` (the risk assessment: `address`,
 *   `risk`, `riskReason`, `cluster`, `addressIdentifications`, `exposures`, `triggers`, `status`) and
 *   `POST /v2/entities` `{address}` (the registration older accounts need); `Token` header.
 * - Sanctions API under `/api/v1`: `GET /address/{address}` → `{identifications: [...]}`; `X-API-Key`.
 *
 * Chainalysis publishes no OpenAPI document for these APIs; `checkRequest` holds what the pages say
 * (method, path, header, body) and every violation is listed in `control.problems` and answered 400.
 * Failure modes on demand, per API: 429 with Retry-After, 403 (the Sanctions API's throttle), 5xx,
 * slow answers (timeouts), malformed bodies, "down" (every call 503), unfinished assessments (a
 * `status` other than COMPLETE), a 404 that lasts after registration; a bad Entity API token is 403.
 *
 *   npx tsx test/standins/chainalysis/server.ts --port 4040
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

export const STANDIN_RISK_KEY = 'chainalysis-standin-risk-token-0123456789';
export const STANDIN_SANCTIONS_KEY = 'chainalysis-standin-sanctions-key-0123456789';

export type Api = 'risk' | 'sanctions';

/** What GET /v2/entities answers for an address (the documented fields). */
export interface EntityDoc {
  address?: string;
  risk: 'Low' | 'Medium' | 'High' | 'Severe';
  riskReason: string | null;
  cluster: { name: string; category: string } | null;
  addressIdentifications: { name: string; category: string; description?: string }[];
  /** `value` may be null or absent: the vendor rates an address whose exposure it cannot value. */
  exposures: {
    category: string;
    value?: number | string | null;
    exposureType: 'direct' | 'indirect';
    direction: string;
  }[];
  triggers: unknown[];
  /** `COMPLETE` when the assessment is final; any other value (e.g. a still-running one) is not. */
  status: string;
  addressType?: string;
}

interface Failure {
  api: Api;
  status: number;
  count: number;
  retryAfter?: string;
  /** Answer 200 with this raw body instead (a malformed answer). */
  body?: string;
  /** Answer this many requests of the api normally first (e.g. fail only a second call). */
  after?: number;
}

export interface ChainalysisStandinControl {
  /** Requests received: api, method, path (the address as sent), status; never header values. */
  readonly requests: { api: Api; method: string; path: string; status: number; body?: unknown }[];
  readonly problems: string[];
  /** The assessment GET answers for `address` (exactly as the stand-in received it). */
  setEntity(address: string, doc: Partial<EntityDoc>): void;
  /**
   * `address` is on the sanctions list (Sanctions API). An EVM address matches in any letter case,
   * unless `exactCase`: then only the spelling given is listed (a list that matches checksummed
   * entries exactly, which no Chainalysis document rules out).
   */
  sanction(address: string, name?: string, opts?: { exactCase?: boolean }): void;
  /** GET /v2/entities answers 404 for an address never POSTed (an account that must register first). */
  requireRegistration(on: boolean): void;
  /** After a registration, the address's next `count` GETs still answer 404 (the assessment not ready yet). */
  registrationLag(count: number): void;
  failNext(f: Failure): void;
  /** The next `count` assessments (of any address) answer with this `status` (not COMPLETE: not final). */
  incompleteNext(count: number, status?: string): void;
  setDown(api: Api, down: boolean): void;
  setDelayMs(api: Api, ms: number): void;
  /** Back to the start: no failures, no data, no requests recorded. */
  reset(): void;
}

export interface ChainalysisStandin {
  /** The Entity Risking API base (SVC_CHAINALYSIS_API_URL). */
  riskUrl: string;
  /** The Sanctions API base (SVC_CHAINALYSIS_SANCTIONS_URL). */
  sanctionsUrl: string;
  control: ChainalysisStandinControl;
  close(): Promise<void>;
}

/** The documented answer for an address Chainalysis knows nothing about: a rating, nothing behind it. */
export function unknownEntity(address: string): EntityDoc {
  return {
    address,
    risk: 'Low',
    riskReason: null,
    cluster: null,
    addressIdentifications: [],
    exposures: [],
    triggers: [],
    status: 'COMPLETE',
    addressType: 'PRIVATE_WALLET',
  };
}

/**
 * Failure bodies. A 403 from the Sanctions API is also how it is reported to throttle (5,000 requests
 * per 5 minutes, no rate-limit headers): `failNext({ api: 'sanctions', status: 403 })` models it.
 */
const MESSAGES: Record<number, string> = {
  403: 'Forbidden',
  429: 'Too Many Requests',
};

const ADDRESS = /^[A-Za-z0-9]{20,100}$/;

/** What the documentation allows of a request; a list of problems (empty: fine). */
export function checkRequest(
  api: Api,
  method: string,
  path: string,
  headers: IncomingMessage['headers'],
  body: unknown,
): string[] {
  const problems: string[] = [];
  if (api === 'risk') {
    if (!headers.token) problems.push('risk: the Token header is missing');
    if (method === 'GET') {
      const m = /^\/v2\/entities\/([^/]+)$/.exec(path);
      if (!m) problems.push(`risk: GET ${path} is not a documented path`);
      else if (!ADDRESS.test(decodeURIComponent(m[1]!))) problems.push(`risk: ${m[1]} is not an address`);
    } else if (method === 'POST') {
      if (path !== '/v2/entities') problems.push(`risk: POST ${path} is not a documented path`);
      const a = (body as { address?: unknown } | null)?.address;
      if (typeof a !== 'string' || !ADDRESS.test(a)) problems.push('risk: POST body must be {address}');
    } else problems.push(`risk: ${method} is not documented`);
  } else {
    if (!headers['x-api-key']) problems.push('sanctions: the X-API-Key header is missing');
    const m = /^\/address\/([^/]+)$/.exec(path);
    if (method !== 'GET' || !m) problems.push(`sanctions: ${method} ${path} is not a documented path`);
    else if (!ADDRESS.test(decodeURIComponent(m[1]!))) problems.push(`sanctions: ${m[1]} is not an address`);
  }
  return problems;
}

export async function startChainalysisStandin(
  opts: { port?: number; riskKey?: string; sanctionsKey?: string } = {},
): Promise<ChainalysisStandin> {
  const riskKey = opts.riskKey ?? STANDIN_RISK_KEY;
  const sanctionsKey = opts.sanctionsKey ?? STANDIN_SANCTIONS_KEY;
  const entities = new Map<string, EntityDoc>();
  const registered = new Set<string>();
  const sanctioned = new Map<string, { name: string; exactCase: boolean }>();
  const listedName = (asked: string) => {
    const exact = sanctioned.get(asked);
    if (exact) return exact.name;
    if (!/^0x[0-9a-fA-F]{40}$/.test(asked)) return undefined;
    for (const [address, e] of sanctioned)
      if (!e.exactCase && address.toLowerCase() === asked.toLowerCase()) return e.name;
    return undefined;
  };
  let registration = false;
  let lag = 0;
  const lagging = new Map<string, number>();
  let incomplete = { count: 0, status: 'PENDING' };
  let failures: Failure[] = [];
  const down: Record<Api, boolean> = { risk: false, sanctions: false };
  const delay: Record<Api, number> = { risk: 0, sanctions: 0 };
  const requests: ChainalysisStandinControl['requests'] = [];
  const problems: string[] = [];

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    const api: Api | null = url.pathname.startsWith('/api/risk/')
      ? 'risk'
      : url.pathname.startsWith('/api/v1/')
        ? 'sanctions'
        : null;
    if (!api) return send(res, 404, { message: 'Not found' });
    const path = url.pathname.slice(api === 'risk' ? '/api/risk'.length : '/api/v1'.length);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const record = (status: number) =>
      requests.push({ api, method: req.method ?? 'GET', path, status, ...(body ? { body } : {}) });
    if (delay[api] > 0) await new Promise((r) => setTimeout(r, delay[api]));
    if (res.destroyed) return;
    const found = checkRequest(api, req.method ?? 'GET', path, req.headers, body);
    if (found.length > 0) {
      problems.push(...found);
      record(400);
      return send(res, 400, { message: found.join('; ') });
    }
    const key = api === 'risk' ? req.headers.token : req.headers['x-api-key'];
    if (key !== (api === 'risk' ? riskKey : sanctionsKey)) {
      // Observed answers (docs/vendors/chainalysis.md, [D]): the Entity API 403 "Invalid token", the
      // Sanctions API 401 "Invalid API Key".
      const status = api === 'risk' ? 403 : 401;
      record(status);
      return send(res, status, { message: api === 'risk' ? 'Invalid token' : 'Invalid API Key' });
    }
    if (down[api]) {
      record(503);
      return send(res, 503, { message: 'Service Unavailable' });
    }
    const i = failures.findIndex((f) => f.api === api && f.count > 0);
    const waiting = i >= 0 && (failures[i]!.after ?? 0) > 0;
    if (waiting) failures[i]!.after! -= 1;
    if (i >= 0 && !waiting) {
      const f = failures[i]!;
      f.count--;
      if (f.count === 0) failures = failures.filter((x) => x !== f);
      record(f.body !== undefined ? 200 : f.status);
      if (f.body !== undefined) return send(res, 200, f.body);
      return send(
        res,
        f.status,
        { message: MESSAGES[f.status] ?? 'Internal Server Error' },
        f.retryAfter ? { 'retry-after': f.retryAfter } : {},
      );
    }
    if (api === 'risk' && req.method === 'POST') {
      const address = (body as { address: string }).address;
      registered.add(address);
      if (lag > 0) lagging.set(address, lag);
      record(201);
      return send(res, 201, { address });
    }
    const address = decodeURIComponent(path.split('/').pop()!);
    if (api === 'risk') {
      const still = lagging.get(address) ?? 0;
      if (still > 0) lagging.set(address, still - 1);
      if ((registration && !registered.has(address)) || still > 0) {
        record(404);
        return send(res, 404, { message: `Address ${address} is not registered` });
      }
      record(200);
      const doc = { ...unknownEntity(address), ...entities.get(address), address };
      if (incomplete.count > 0) {
        incomplete.count--;
        doc.status = incomplete.status;
      }
      return send(res, 200, doc);
    }
    const name = listedName(address);
    record(200);
    return send(res, 200, {
      identifications: name
        ? [
            {
              category: 'sanctions',
              name: `SANCTIONS: OFAC SDN ${name}`,
              description: `${name} was added to the OFAC SDN list.`,
              url: 'https://home.treasury.gov/',
            },
          ]
        : [],
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { message: String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const control: ChainalysisStandinControl = {
    requests,
    problems,
    setEntity: (address, doc) => entities.set(address, { ...unknownEntity(address), ...doc }),
    sanction: (address, name = 'Standin Sanctioned Entity', opts = {}) =>
      sanctioned.set(address, { name, exactCase: opts.exactCase ?? false }),
    requireRegistration: (on) => {
      registration = on;
    },
    registrationLag: (count) => {
      lag = count;
    },
    failNext: (f) => failures.push({ ...f }),
    incompleteNext: (count, status = 'PENDING') => {
      incomplete = { count, status };
    },
    setDown: (api, d) => {
      down[api] = d;
    },
    setDelayMs: (api, ms) => {
      delay[api] = ms;
    },
    reset: () => {
      failures = [];
      down.risk = down.sanctions = false;
      delay.risk = delay.sanctions = 0;
      registration = false;
      lag = 0;
      lagging.clear();
      incomplete = { count: 0, status: 'PENDING' };
      entities.clear();
      registered.clear();
      sanctioned.clear();
      requests.length = 0;
      problems.length = 0;
    },
  };
  return {
    riskUrl: `${base}/api/risk`,
    sanctionsUrl: `${base}/api/v1`,
    control,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '4040' } } });
  startChainalysisStandin({ port: Number(values.port) }).then((s) => {
    console.log(`Chainalysis stand-in: risk ${s.riskUrl}, sanctions ${s.sanctionsUrl}`);
  });
}
