/**
 * The stand-in's HTTP surface: the Token.io API paths the service uses (authenticated as
 * docs/vendors/tokenio.md says), the bank's own pages, and `/_standin/control` (unauthenticated,
 * for local use) to steer failures. Every API route goes through the fault queue first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkAuth, type StandinAuth } from './auth';
import type { Fault, Faults, Operation } from './faults';
import {
  errorBody,
  type PaymentInitiation,
  type RefundInitiation,
  STANDIN_BANKS,
  type VrpConsentInitiation,
} from './fixtures';
import { checkAgainstReference } from './openapi-check';
import { closedPage, consentPage, paymentPage } from './pages';
import { type BankOutcome, type ConsentOutcome, StandinError, type TokenioStore } from './store';
import { checkConsentInitiation, checkPaymentInitiation, checkSubTpp } from './validate';

export interface RouteContext {
  store: TokenioStore;
  faults: Faults;
  auth: StandinAuth;
  requireHttpsCallback: boolean;
  /** Handles `/_standin/control` bodies. */
  control: (cmd: Record<string, unknown>) => Promise<unknown>;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const ok = (body: unknown): Answer => ({ status: 200, body });
const notFound = (what: string, extra: Record<string, unknown> = {}): Answer => ({
  status: 404,
  body: errorBody('NOT_FOUND', `${what} was not found`, extra),
});

const FAULT_BODIES: Record<number, unknown> = {
  429: errorBody('RESOURCE_EXHAUSTED', 'Resource exhausted. Check quota.'),
  500: errorBody('InternalServerError', 'An unexpected or internal server error'),
  503: errorBody('UNAVAILABLE', 'Unavailable'),
  504: errorBody('DEADLINE_EXCEEDED', 'Gateway has timed out'),
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, a: Answer): void {
  const body = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
  res.writeHead(a.status, {
    'content-type': typeof a.body === 'string' ? 'text/html; charset=utf-8' : 'application/json',
    ...a.headers,
  });
  res.end(body);
}

function parseJson(buf: Buffer): unknown {
  try {
    return buf.length ? JSON.parse(buf.toString('utf8')) : {};
  } catch {
    throw new StandinError(400, errorBody('InvalidArgument', 'The body is not valid JSON'));
  }
}

function limitOf(q: URLSearchParams, name: string): number {
  const raw = q.get(name);
  const n = Number(raw);
  if (!raw || !Number.isInteger(n) || n < 1 || n > 200)
    throw new StandinError(
      400,
      errorBody('InvalidArgument', `${name} must be between 1 and 200`, { paths: [name] }),
    );
  return n;
}

/** Offset pagination as the reference's `PageInfo` describes it (the offset is opaque: an index here). */
function page<T>(items: T[], q: URLSearchParams, limitName: string, offsetName: string) {
  const limit = limitOf(q, limitName);
  const start = Number(q.get(offsetName) ?? 0) || 0;
  const slice = items.slice(start, start + limit);
  const haveMore = start + limit < items.length;
  return {
    slice,
    pageInfo: {
      limit,
      offset: String(start),
      nextOffset: String(haveMore ? start + limit : start),
      haveMore,
    },
  };
}

function apiRoute(method: string, path: string): { op: Operation; params: string[] } | null {
  const seg = path.split('/').filter(Boolean).map(decodeURIComponent);
  const is = (m: string, ...parts: (string | null)[]) =>
    method === m && seg.length === parts.length && parts.every((p, i) => p === null || p === seg[i]);
  if (is('GET', 'v2', 'banks')) return { op: 'banks.list', params: [] };
  if (is('POST', 'v2', 'payments')) return { op: 'payments.initiate', params: [] };
  if (is('GET', 'v2', 'payments')) return { op: 'payments.list', params: [] };
  if (is('GET', 'v2', 'payments', null)) return { op: 'payments.get', params: [seg[2]!] };
  if (is('PUT', 'webhook', 'config')) return { op: 'webhook.set', params: [] };
  if (is('GET', 'webhook', 'config')) return { op: 'webhook.get', params: [] };
  if (is('POST', 'member', 'sub-tpps')) return { op: 'subtpps.create', params: [] };
  if (is('GET', 'member', 'sub-tpps')) return { op: 'subtpps.list', params: [] };
  if (is('GET', 'member', 'sub-tpps', null)) return { op: 'subtpps.get', params: [seg[2]!] };
  if (is('POST', 'vrp-consents')) return { op: 'vrp.consents.create', params: [] };
  if (is('GET', 'vrp-consents')) return { op: 'vrp.consents.list', params: [] };
  if (is('GET', 'vrp-consents', null)) return { op: 'vrp.consents.get', params: [seg[1]!] };
  if (is('DELETE', 'vrp-consents', null)) return { op: 'vrp.consents.revoke', params: [seg[1]!] };
  if (is('POST', 'refunds')) return { op: 'refunds.initiate', params: [] };
  if (is('GET', 'refunds')) return { op: 'refunds.list', params: [] };
  if (is('GET', 'refunds', null)) return { op: 'refunds.get', params: [seg[1]!] };
  return null;
}

async function handleApi(
  ctx: RouteContext,
  op: Operation,
  params: string[],
  q: URLSearchParams,
  body: Buffer,
  headers: IncomingMessage['headers'],
): Promise<Answer> {
  const { store } = ctx;
  const rules = {
    activeSubTpps: (id: string) => store.subTpps.get(id)?.status === 'ACTIVATED',
    requireHttpsCallback: ctx.requireHttpsCallback,
  };
  switch (op) {
    case 'banks.list': {
      const ids = q.getAll('ids').map((s) => s.toLowerCase());
      const search = q.get('search')?.toLowerCase();
      const countries = q.getAll('countries');
      const banks = STANDIN_BANKS.filter(
        (b) =>
          (!ids.length || ids.includes(b.id.toLowerCase())) &&
          (!search || b.name.toLowerCase().includes(search) || b.bic.toLowerCase().includes(search)) &&
          (!countries.length || b.countries.some((c) => countries.includes(c))) &&
          (q.get('supportsSinglePayment') !== 'true' || b.supportsSinglePayment) &&
          (q.get('supportsVariableRecurringPayment') !== 'true' || b.supportsVariableRecurringPayment),
      );
      const perPage = Number(q.get('perPage') ?? 200) || 200;
      const pageNo = Math.max(1, Number(q.get('page') ?? 1) || 1);
      const slice = banks.slice((pageNo - 1) * perPage, pageNo * perPage);
      return ok({
        banks: slice,
        paging: {
          page: pageNo,
          perPage,
          pageCount: Math.ceil(banks.length / perPage),
          totalCount: banks.length,
        },
      });
    }
    case 'payments.initiate': {
      const initiation = checkPaymentInitiation(parseJson(body), rules) as unknown as PaymentInitiation;
      const p = store.createPayment(initiation);
      store.consentAccepted.set(
        p.id,
        (parseJson(body) as { pispConsentAccepted?: unknown }).pispConsentAccepted === true,
      );
      const ip = headers['token-customer-ip-address'];
      store.customerIp.set(p.id, typeof ip === 'string' ? ip : null);
      const timeout = Number(headers['request-timeout']);
      // `request-timeout` (seconds): answer by then with the payment as it stands (reference InitiatePayment).
      const timeoutMs = Number.isFinite(timeout) && timeout > 0 ? timeout * 1000 : Number.POSITIVE_INFINITY;
      await store.waitBeyondPending(p.id, Math.min(timeoutMs, store.opts.bankAckDelayMs + 50));
      return ok({ payment: p });
    }
    case 'payments.get': {
      const p = store.payments.get(params[0]!);
      return p ? ok({ payment: p }) : notFound('The payment', { paymentId: params[0] });
    }
    case 'payments.list': {
      // GetPayments: `onBehalfOfId` "is mandatory for unregulated TPPs" (reference GET /v2/payments;
      // TB-1549), and the stand-in's member is a TPP under Token.io's licence.
      if (!q.get('onBehalfOfId'))
        return {
          status: 400,
          body: errorBody('InvalidArgument', 'onBehalfOfId is required for unregulated TPPs', {
            paths: ['onBehalfOfId'],
          }),
        };
      const list = store.listPayments({
        ids: q.getAll('ids'),
        refIds: q.getAll('refIds'),
        statuses: q.getAll('statuses'),
        type: q.get('type') ?? undefined,
        vrpConsentId: q.get('vrpConsentId') ?? undefined,
        onBehalfOfId: q.get('onBehalfOfId') ?? undefined,
      });
      const { slice, pageInfo } = page(list, q, 'limit', 'offset');
      return ok({ payments: slice, pageInfo });
    }
    case 'webhook.set': {
      const b = parseJson(body) as { config?: { type?: unknown; url?: unknown } };
      const type = b.config?.type;
      if (!Array.isArray(type) || typeof b.config?.url !== 'string' || !b.config.url)
        throw new StandinError(400, errorBody('InvalidArgument', 'config.type and config.url are required'));
      store.notifier.config = { type: type.map(String), url: b.config.url };
      return ok({});
    }
    case 'webhook.get':
      return store.notifier.config ? ok({ config: store.notifier.config }) : notFound('The webhook config');
    case 'subtpps.create': {
      const b = checkSubTpp(parseJson(body));
      const s = store.createSubTpp(b as never);
      return ok({ subTppId: s.id });
    }
    case 'subtpps.get': {
      const s = store.subTpps.get(params[0]!);
      return s ? ok({ subTpp: s }) : notFound('The sub-TPP');
    }
    case 'subtpps.list': {
      const names = q.getAll('filter.byCompanyNames');
      const list = [...store.subTpps.values()].filter((s) => !names.length || names.includes(s.name));
      const { slice, pageInfo } = page(list, q, 'page.limit', 'page.offset');
      return ok({ subTpps: slice, pageInfo });
    }
    case 'vrp.consents.create': {
      const initiation = checkConsentInitiation(parseJson(body), rules) as unknown as VrpConsentInitiation;
      return ok({ vrpConsent: store.createConsent(initiation) });
    }
    case 'vrp.consents.get': {
      const c = store.consents.get(params[0]!);
      return c ? ok({ vrpConsent: c }) : notFound('VRP consent');
    }
    case 'vrp.consents.list': {
      const statuses = q.getAll('statuses');
      const after = q.get('createdAfter');
      const before = q.get('createdBefore');
      const onBehalfOf = q.get('onBehalfOfId');
      const list = [...store.consents.values()].filter(
        (c) =>
          (!statuses.length || statuses.includes(c.status)) &&
          (!after || c.createdDateTime > new Date(after).toISOString()) &&
          (!before || c.createdDateTime < new Date(before).toISOString()) &&
          (!onBehalfOf || c.initiation.onBehalfOfId === onBehalfOf),
      );
      store.consentListReads += 1;
      const { slice, pageInfo } = page(list, q, 'limit', 'offset');
      return ok({ vrpConsents: slice, pageInfo });
    }
    case 'refunds.initiate': {
      const b = parseJson(body) as { initiation?: RefundInitiation };
      return ok({ refund: store.createRefund(b.initiation!) });
    }
    case 'refunds.get': {
      const r = store.refunds.get(params[0]!);
      return r ? ok({ refund: r }) : notFound('The refund', { refundId: params[0] });
    }
    case 'refunds.list': {
      // GetRefunds: `onBehalfOfIds` "is mandatory for unregulated TPPs" (reference GET /refunds).
      if (!q.getAll('onBehalfOfIds').length)
        return {
          status: 400,
          body: errorBody('InvalidArgument', 'onBehalfOfIds is required for unregulated TPPs', {
            paths: ['onBehalfOfIds'],
          }),
        };
      const list = store.listRefunds({
        ids: q.getAll('ids'),
        refIds: q.getAll('refIds'),
        statuses: q.getAll('statuses'),
        onBehalfOfIds: q.getAll('onBehalfOfIds'),
      });
      const { slice, pageInfo } = page(list, q, 'limit', 'offset');
      // Reference `RefundsResponse`: `paging` (`PagingInfo`: limit, offset of the next page).
      return ok({ refunds: slice, paging: { limit: pageInfo.limit, offset: pageInfo.nextOffset } });
    }
    case 'vrp.consents.revoke': {
      const c = store.consents.get(params[0]!);
      if (!c) return notFound('VRP consent');
      // The bank may not have completed the revocation yet: the consent comes back as it stands.
      if (store.holdRevocations) return ok({ vrpConsent: c });
      store.setConsentStatus(c.id, 'REVOKED', 'The VRP consent has been revoked');
      return ok({ vrpConsent: c });
    }
  }
}

function bankPage(ctx: RouteContext, method: string, path: string, body: Buffer): Answer | null {
  const m = /^\/bank\/(payments|consents)\/([^/]+)$/.exec(path);
  if (!m) return null;
  const id = decodeURIComponent(m[2]!);
  const kind = m[1] as 'payments' | 'consents';
  const outcome = new URLSearchParams(body.toString('utf8')).get('outcome') ?? '';
  if (kind === 'payments') {
    const p = ctx.store.payments.get(id);
    if (!p) return { status: 404, body: closedPage() };
    const open = p.status === 'INITIATION_PENDING_REDIRECT_AUTH';
    if (method === 'GET') return { status: open ? 200 : 410, body: open ? paymentPage(p) : closedPage() };
    const next = ctx.store.decidePayment(id, outcome as BankOutcome);
    return next
      ? { status: 303, body: '', headers: { location: next } }
      : { status: 410, body: closedPage() };
  }
  const c = ctx.store.consents.get(id);
  if (!c) return { status: 404, body: closedPage() };
  const open = c.status === 'PENDING_REDIRECT_AUTH';
  if (method === 'GET') return { status: open ? 200 : 410, body: open ? consentPage(c) : closedPage() };
  const next = ctx.store.decideConsent(id, outcome as ConsentOutcome);
  return next ? { status: 303, body: '', headers: { location: next } } : { status: 410, body: closedPage() };
}

async function applyFault(res: ServerResponse, fault: Fault): Promise<boolean> {
  if (fault.kind === 'delay') {
    await new Promise((r) => setTimeout(r, fault.ms));
    return false;
  }
  if (fault.kind === 'reset') {
    res.socket?.destroy();
    return true;
  }
  send(res, {
    status: fault.status,
    body: FAULT_BODIES[fault.status] ?? errorBody('Unknown', `HTTP ${fault.status}`),
    headers: fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
  });
  return true;
}

export async function handleRequest(
  ctx: RouteContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://standin');
  const method = req.method ?? 'GET';
  const body = await readBody(req);
  try {
    if (url.pathname === '/_standin/control' && method === 'POST') {
      send(res, ok((await ctx.control(parseJson(body) as Record<string, unknown>)) ?? {}));
      return;
    }
    const bank = bankPage(ctx, method, url.pathname, body);
    if (bank) return send(res, bank);
    const route = apiRoute(method, url.pathname);
    if (!route) return send(res, { status: 404, body: errorBody('NOT_FOUND', 'No such endpoint') });
    const denied = checkAuth(
      ctx.auth,
      {
        method,
        path: url.pathname,
        host: req.headers.host ?? '',
        body,
        authorization: req.headers.authorization,
      },
      Date.now(),
    );
    if (denied) return send(res, { status: 401, body: { error: { message: denied } } });
    // Token.io's published OpenAPI document decides what a request may be (openapi-check.ts).
    const wrong = checkAgainstReference(method, url.pathname, url.searchParams, body);
    if (wrong) {
      ctx.store.referenceViolations.push(`${method} ${url.pathname}: ${wrong.message}`);
      if (process.env.STANDIN_DEBUG) console.error(ctx.store.referenceViolations.at(-1));
      return send(res, {
        status: 400,
        body: errorBody('InvalidArgument', wrong.message, { paths: wrong.paths }),
      });
    }
    const fault = ctx.faults.take(route.op);
    const after = fault && fault.kind !== 'delay' && fault.afterEffect;
    if (fault && !after && fault.kind !== 'delay' && (await applyFault(res, fault))) return;
    const answer = await handleApi(ctx, route.op, route.params, url.searchParams, body, req.headers);
    if (fault && (after || fault.kind === 'delay') && (await applyFault(res, fault))) return;
    send(res, answer);
  } catch (err) {
    if (err instanceof StandinError) return send(res, { status: err.status, body: err.body });
    send(res, { status: 500, body: errorBody('InternalServerError', String((err as Error).message)) });
  }
}
