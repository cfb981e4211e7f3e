/**
 * The spec's error bodies everywhere: `{detail: string}`, or 422 `{detail: [{loc, msg, type}]}`
 * (schema validation included). 5xx internals are logged, never returned. Besides the error and
 * not-found handlers this covers what Fastify answers itself: router errors (`frameworkErrors`:
 * malformed URL 400, over-long path parameter 414), HTTP-parser errors on the socket
 * (`clientErrorHandler`: 400, 408, 431) and requests arriving while the server closes (503).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import { AppError, ValidationError, type ValidationIssue } from '../shared/errors';
import { HttpMessages } from '../shared/http.messages';
import { M } from '../shared/messages';

export interface AjvIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Body media types a route may parse, in the order a 415 names them (uploads first, JSON last). */
const BODY_MEDIA_TYPES = ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'];

/**
 * 415's detail: the media types this route's scope parses (API routes: JSON only; the hosted pages
 * also take their forms, the remediation page its multipart upload). A form-encoded body (curl's
 * default with `-d`) is the usual cause, so the answer says what to send instead.
 */
export function unsupportedMediaTypeDetail(request: FastifyRequest): string {
  const accepted = BODY_MEDIA_TYPES.filter((t) => request.server.hasContentTypeParser(t));
  if (accepted.length === 0) return HttpMessages.unsupportedMediaType;
  const last = accepted.pop()!;
  return `Content-Type must be ${accepted.length > 0 ? `${accepted.join(', ')} or ${last}` : last}`;
}

const CONTEXT_LOC: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function pathSegments(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function issueFromAjv(context: string, e: AjvIssue): ValidationIssue {
  const loc: (string | number)[] = [CONTEXT_LOC[context] ?? context, ...pathSegments(e.instancePath)];
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return { loc: [...loc, String(p.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'additionalProperties':
      return {
        loc: [...loc, String(p.additionalProperty)],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      };
    case 'type':
      return {
        loc,
        msg: `Input should be a valid ${String(p.type).replace(/,/g, ' or ')}`,
        type: `${String(p.type).split(',')[0]}_type`,
      };
    case 'nulCharacter':
      return { loc, msg: 'Input should not contain NUL characters', type: 'string_nul_character' };
    case 'loneSurrogate':
      return { loc, msg: 'Input should be valid Unicode (no lone surrogates)', type: 'string_unicode' };
    case 'finiteNumber':
      return { loc, msg: 'Input should be a finite number', type: 'finite_number' };
    case 'minimum':
      return { loc, msg: `Input should be greater than or equal to ${p.limit}`, type: 'greater_than_equal' };
    case 'exclusiveMinimum':
      return { loc, msg: `Input should be greater than ${p.limit}`, type: 'greater_than' };
    case 'maximum':
      return { loc, msg: `Input should be less than or equal to ${p.limit}`, type: 'less_than_equal' };
    case 'exclusiveMaximum':
      return { loc, msg: `Input should be less than ${p.limit}`, type: 'less_than' };
    case 'minLength':
      return {
        loc,
        msg: `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        type: 'string_too_short',
      };
    case 'maxLength':
      return {
        loc,
        msg: `String should have at most ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        type: 'string_too_long',
      };
    case 'minItems':
      return {
        loc,
        msg: `List should have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`,
        type: 'too_short',
      };
    case 'maxItems':
      return {
        loc,
        msg: `List should have at most ${p.limit} item${p.limit === 1 ? '' : 's'}`,
        type: 'too_long',
      };
    case 'pattern':
      return { loc, msg: `String should match pattern '${p.pattern}'`, type: 'string_pattern_mismatch' };
    case 'format':
      return {
        loc,
        msg: `Input should be a valid ${p.format}`,
        type: `${String(p.format).replace(/-/g, '_')}_parsing`,
      };
    case 'enum':
      return {
        loc,
        msg: `Input should be ${(p.allowedValues as unknown[]).map((v) => `'${v}'`).join(', ')}`,
        type: 'enum',
      };
    case 'const':
      return { loc, msg: `Input should be '${p.allowedValue}'`, type: 'literal_error' };
    case 'uniqueItems':
      return { loc, msg: 'List items should be unique', type: 'unique_items' };
    default:
      return {
        loc,
        msg: e.message ? e.message.charAt(0).toUpperCase() + e.message.slice(1) : 'Invalid value',
        type: 'value_error',
      };
  }
}

const within = (inner: ValidationIssue['loc'], outer: ValidationIssue['loc']) =>
  inner.length >= outer.length && outer.every((part, i) => inner[i] === part);

/**
 * Collapses anyOf/oneOf noise: keep the most specific issue per location. A nullable field
 * (`anyOf: [X, null]`) that got a non-null value fails both branches; "Input should be a valid
 * null" says nothing useful then, so it is dropped when X's own issues are there.
 */
function dedupe(issues: ValidationIssue[], raw: AjvIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const [i, issue] of issues.entries()) {
    const kw = raw[i]?.keyword;
    if ((kw === 'anyOf' || kw === 'oneOf') && issues.length > 1) continue;
    if (
      issue.type === 'null_type' &&
      issues.some((other, j) => j !== i && raw[j]?.keyword !== 'anyOf' && within(other.loc, issue.loc))
    )
      continue;
    const key = `${JSON.stringify(issue.loc)}|${issue.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out.length > 0 ? out : issues.slice(0, 1);
}

/** The 422 issues of Ajv errors, as the error handler answers them (bulk rows reuse this for per-row errors). */
export function issuesFromAjv(context: string, errors: AjvIssue[]): ValidationIssue[] {
  return dedupe(
    errors.map((e) => issueFromAjv(context, e)),
    errors,
  );
}

export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler(
      (err: FastifyError & { validation?: AjvIssue[]; validationContext?: string }, request, reply) => {
        if (err instanceof ValidationError) {
          return reply.status(422).send({ detail: err.issues });
        }
        if (err instanceof AppError) {
          if (err.statusCode >= 500) request.log.error({ err }, err.detail);
          return reply
            .status(err.statusCode)
            .headers(err.headers)
            .send({ detail: err.detail, ...err.extra });
        }
        if (err.validation) {
          return reply
            .status(422)
            .send({ detail: issuesFromAjv(err.validationContext ?? 'body', err.validation) });
        }
        if (
          err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
          (err.statusCode === 400 && err instanceof SyntaxError)
        ) {
          return reply
            .status(422)
            .send({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
        }
        if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
          return reply
            .status(422)
            .send({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
        }
        if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
          return reply.status(415).send({ detail: unsupportedMediaTypeDetail(request) });
        }
        const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
        if (status >= 400 && status < 500) {
          // Framework-level client errors (unsupported media type, body too large, ...): their text is safe.
          const detail = typeof err.message === 'string' && err.message ? err.message : STATUS_CODES[status];
          return reply.status(status).send({ detail: detail ?? HttpMessages.badRequest });
        }
        request.log.error({ err }, 'unhandled error');
        return reply.status(500).send({ detail: M.internalError });
      },
    );

    // A known path with a method it does not serve: 405 with `Allow` (RFC 9110), else 404.
    const known = FindMyWay({ ignoreTrailingSlash: false });
    const methodsByPath = new Map<string, Set<string>>();
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      // One entry per path shape: `/x/:id` and `/x/:name` are the same path to a caller.
      const shape = route.url.replace(/:[A-Za-z0-9_]+/g, ':p');
      let set = methodsByPath.get(shape);
      if (!set) {
        set = new Set<string>();
        methodsByPath.set(shape, set);
        try {
          known.on('GET', shape, () => undefined, { path: shape });
        } catch {
          // a shape the router already knows under another spelling: its methods still merge below
        }
      }
      for (const m of methods) set.add(m);
    });
    const methodsOf = (path: string): Set<string> | undefined => {
      let match: ReturnType<typeof known.find> = null;
      try {
        match = known.find('GET', path);
      } catch {
        match = null;
      }
      return match ? methodsByPath.get((match.store as { path: string }).path) : undefined;
    };
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      const allowed = methodsOf(path);
      // A path missing its /api/v1 prefix that names an API operation: say so (the detail stays the spec's).
      const api = path.startsWith('/api/') ? undefined : methodsOf(`/api/v1${path}`);
      const hint = api?.has(request.method)
        ? { hint: `API paths start with /api/v1: ${request.method} /api/v1${path}` }
        : {};
      if (allowed && !allowed.has(request.method)) {
        const allow = [...allowed].sort().join(', ');
        return reply
          .status(405)
          .header('allow', allow)
          .send({ detail: HttpMessages.methodNotAllowed, ...hint });
      }
      return reply.status(404).send({ detail: M.notFound, ...hint });
    });

    // Fastify's own 503 while closing has its `{error, message, statusCode}` body (return503OnClosing
    // is off in app.ts): answer in the spec's format instead, before authentication touches the database.
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    // Synchronous (no promise per request); an early reply does not call done.
    app.addHook('onRequest', (_request, reply, done) => {
      if (!closing) return done();
      reply.status(503).header('connection', 'close').send({ detail: HttpMessages.serviceUnavailable });
    });
  },
  { name: 'error-handler' },
);

/** Router-level errors (Fastify's `frameworkErrors`), answered in the spec's format. */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('X-Request-Id', request.id);
  if (err.code === 'FST_ERR_BAD_URL') return reply.status(400).send({ detail: HttpMessages.malformedUrl });
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return reply.status(414).send({ detail: HttpMessages.uriTooLong });
  request.log.error({ err }, 'router error');
  return reply.status(500).send({ detail: M.internalError });
}

/**
 * Errors of the HTTP parser, before any request exists (Fastify's `clientErrorHandler`): header
 * block too large 431, request timeout 408, anything else malformed 400. Written on the socket.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 431
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 408
        : err.code === 'HPE_URI_TOO_LONG'
          ? 414
          : 400;
  const detail =
    status === 431
      ? HttpMessages.headersTooLarge
      : status === 408
        ? HttpMessages.requestTimeout
        : status === 414
          ? HttpMessages.uriTooLong
          : HttpMessages.badRequest;
  const body = JSON.stringify({ detail });
  this.log.debug({ code: err.code }, 'client error');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
