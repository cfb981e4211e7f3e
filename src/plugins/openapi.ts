/**
 * OpenAPI 3.1 generated from the route schemas (served at /api/v1/openapi.json, reference page at
 * /docs, see docs-page.ts). The document says what the service does, mostly derived from each route's declaration.
 *
 * ## How to declare a route
 *
 * A route declares, in its options:
 *  - `schema.params`, `schema.querystring`, `schema.headers`, `schema.body`: TypeBox request schemas
 *    (validation and documentation at once). Give a defaulted field its `default`: it is then
 *    documented as optional. Integers/numbers without bounds get PostgreSQL-safe ones.
 *  - `schema.response`: the success schemas (and any error whose body you want to describe).
 *  - `config.permission` (client token with that permission), `config.auth: 'client' | 'staff' |
 *    'public'`, `config.dashboardOnly`: security and the 401/403 answers follow from these.
 *  - `config.errors`: every further status the route can answer that is not derived below, e.g.
 *    `[409, 429]` for an idempotent route with a cooldown, `[401, 403]` for a public login, `502`.
 *  - `config.idempotency: 'required' | 'optional'` when the route reads `X-Idempotency-Key`
 *    (documents the header, required or not, and its 400/409 answers).
 *  - optionally `schema.operationId` (otherwise derived from method and path, e.g.
 *    `getTransactionsByTransactionIdStatusEvents`).
 *
 * Derived for every operation: 400 (malformed URL encoding, rules of the request), 500 and 503
 * (shutting down); with a token: 401 and 403 (staff: 401); with path parameters: 404, 414 and
 * 422; a body naming another resource (`*_id`): 404; with a query string or header schema: 422;
 * POST/PUT/PATCH/DELETE: 413, 415 and 422 (the body is parsed whatever the schema). A test (test/helpers/status-recorder.ts, active in every
 * test file) fails when an operation answers a status its entry does not list, and the
 * property-based test (test/hardening/openapi-fuzz.test.ts) sends hostile input to every operation.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { PERMISSION_MATRIX } from '../modules/auth/team/permissions.policy';
import { moveRequestDefaults } from '../platform/openapi/request-defaults';
import { markNamed } from '../platform/openapi/schema-names';
import { guideLink } from '../platform/openapi/tags';
import { ERROR_SCHEMA_FIELDS } from '../shared/error-schema';
import { docsGuides } from './docs-guides';
import { CompressedText, docsPages, type OutlineDoc } from './docs-page';
import { finishDocument, merchantDocument, type OpenApiDoc, staffDocument } from './openapi-documents';
import { registerSchemaNames } from './openapi-names';

/** Error statuses a route can declare in `config.errors`. */
export type ErrorStatus =
  | 400
  | 401
  | 403
  | 404
  | 406
  | 409
  | 410
  | 413
  | 414
  | 415
  | 422
  | 429
  | 500
  | 502
  | 503;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Statuses the route answers beyond the derived ones (see "How to declare a route" above). */
    errors?: readonly ErrorStatus[];
    /** The route reads X-Idempotency-Key: `required` (missing or empty: 400) or `optional`. */
    idempotency?: 'required' | 'optional';
  }
}

type Schema = Record<string, unknown>;
type RouteConfig = {
  permission?: keyof typeof PERMISSION_MATRIX;
  dashboardOnly?: boolean;
  auth?: string;
  errors?: readonly ErrorStatus[];
  idempotency?: 'required' | 'optional';
};

const errorBody = { $ref: '#/components/schemas/ErrorResponse' };
const json = (description: string, schema: unknown = errorBody, extra: Schema = {}) => ({
  description,
  content: { 'application/json': { schema } },
  ...extra,
});

const RATE_HEADERS = {
  'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
  'X-RateLimit-Limit': { description: 'Attempts allowed in the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Attempts left (0)', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time when the lock ends', schema: { type: 'integer' } },
};

/** The shared error answers (components.responses), by status. */
const ERROR_RESPONSES: Record<ErrorStatus, [string, Schema]> = {
  400: ['BadRequest', json('Rejected by a rule of the request, or a malformed URL (the message says which)')],
  401: [
    'Unauthorized',
    json('Missing, invalid, expired or revoked token or credentials', errorBody, {
      headers: {
        'WWW-Authenticate': {
          description:
            'RFC 6750 challenge: `Bearer` when no token was sent; otherwise `Bearer error="invalid_token", ' +
            'error_description="…"` saying why (e.g. "The access token expired", revoked, malformed, inactive, ' +
            'or an API key or secret sent instead of the access token it is exchanged for at POST /auth/api-token). ' +
            "The `detail` keeps the spec's message; the body repeats the description as `error_description`.",
          schema: { type: 'string' },
        },
      },
    }),
  ],
  403: [
    'Forbidden',
    json('Not permitted for this token, role, client or environment', errorBody, {
      headers: {
        'WWW-Authenticate': {
          description:
            'On a missing permission only (RFC 6750 section 3.1): `Bearer error="insufficient_scope", ' +
            'scope="<the permission>"`, the permission the operation description names. The `detail` keeps ' +
            "the spec's message; the body adds `required_permission` and `roles_with_permission`.",
          schema: { type: 'string' },
        },
      },
    }),
  ],
  404: ['NotFound', json('Not found, or owned by another client')],
  406: ['NotAcceptable', json('The route answers only the media type named in its description (`Accept`)')],
  409: ['Conflict', json('Idempotency or state conflict')],
  410: ['Gone', json('No longer available')],
  413: ['PayloadTooLarge', json('Request body larger than 1 MiB')],
  414: ['UriTooLong', json('A path parameter longer than 200 characters')],
  415: [
    'UnsupportedMediaType',
    json('Request body is not `application/json`: `{"detail": "Content-Type must be application/json"}`'),
  ],
  422: [
    'ValidationError',
    json('Validation failed: one entry per failing field, `loc` names its path (e.g. ["body","amount"])', {
      $ref: '#/components/schemas/ValidationErrorResponse',
    }),
  ],
  429: [
    'TooManyRequests',
    json('Locked out or cooling down; retry after `Retry-After` seconds', errorBody, {
      headers: RATE_HEADERS,
    }),
  ],
  500: ['InternalError', json('Unexpected error (no internals are disclosed)')],
  502: ['BadGateway', json('An upstream service (email delivery) failed')],
  503: ['ServiceUnavailable', json('Shutting down, or a dependent service is unavailable')],
};

const COMPONENT_SCHEMAS = {
  ErrorResponse: {
    type: 'object',
    required: ['detail'],
    properties: {
      detail: { type: 'string' },
      error_description: {
        type: 'string',
        description:
          "401 with a bearer token: why it was refused (the WWW-Authenticate challenge's error_description)",
      },
      required_permission: {
        type: 'string',
        description:
          '403 for a missing permission: the permission the operation needs (as in the role table)',
      },
      roles_with_permission: {
        type: 'array',
        items: { type: 'string', enum: ['owner', 'operations', 'developer'] },
        description: '403 for a missing permission: the roles that have it',
      },
    },
  },
  ValidationErrorResponse: {
    type: 'object',
    required: ['detail'],
    properties: {
      detail: {
        type: 'array',
        items: {
          type: 'object',
          required: ['loc', 'msg', 'type'],
          properties: {
            loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
            msg: { type: 'string' },
            type: { type: 'string' },
          },
        },
      },
    },
  },
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Deterministic operationId from method and path: `GET /api/v1/a-b/:id/c` -> `getABByIdC`. */
export function deriveOperationId(method: string, url: string): string {
  const words = url
    .replace(/^\/api\/v1\//, '/')
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => {
      const param = /^[:{]([^}]+)}?$/.exec(seg);
      return param ? ['by', ...param[1]!.split(/[_-]/)] : seg.split(/[_.-]/);
    })
    .filter(Boolean);
  const pascal = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  return `${method.toLowerCase()}${pascal}`;
}

/** A body that references another resource by id (`project_id`, `template_ids`, ...) can name a missing one: 404. */
function namesAnId(schema: unknown): boolean {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const props = (node as Schema).properties as Schema | undefined;
    if (props && Object.keys(props).some((k) => /_ids?$/.test(k))) return true;
    for (const v of Object.values(node as Schema)) if (v && typeof v === 'object') stack.push(v);
  }
  return false;
}

/** The error statuses an operation can answer, from its declaration. */
export function errorStatusesOf(method: string, schema: Schema, cfg: RouteConfig): ErrorStatus[] {
  const s = new Set<ErrorStatus>([400, 500, 503]);
  if (cfg.permission || cfg.auth === 'client') {
    s.add(401);
    s.add(403);
  } else if (cfg.auth === 'staff') s.add(401);
  if (schema.params || namesAnId(schema.body)) s.add(404);
  if (schema.params) for (const c of [414, 422] as const) s.add(c);
  if (schema.querystring || schema.headers || schema.body) s.add(422);
  if (BODY_METHODS.has(method)) for (const c of [413, 415, 422] as const) s.add(c);
  if (cfg.idempotency) s.add(409);
  for (const c of cfg.errors ?? []) s.add(c);
  return [...s].sort((a, b) => a - b);
}

/**
 * A copy of a request schema for the document: fields with a `default` are not required (the
 * validator fills them in) and show their default as `x-default` (request-defaults.ts), named
 * schemas of a body are marked (schema-names.ts), and `extraRequired` names become required.
 */
function forDocument(schema: unknown, extraRequired: string[] = [], named = false): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  // Only bodies become components; parameters stay inline.
  const copy = (
    named ? markNamed(schema, { byContent: true }) : JSON.parse(JSON.stringify(schema))
  ) as Schema;
  const stack: Schema[] = [copy];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const props = node.properties as Record<string, Schema> | undefined;
    if (props && Array.isArray(node.required)) {
      node.required = (node.required as string[]).filter((k) => props[k]?.default === undefined);
      if ((node.required as string[]).length === 0) delete node.required;
    }
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) for (const x of v) if (x && typeof x === 'object') stack.push(x as Schema);
      if (v && typeof v === 'object' && !Array.isArray(v)) stack.push(v as Schema);
    }
  }
  moveRequestDefaults(copy);
  if (extraRequired.length > 0)
    copy.required = [...new Set([...((copy.required as string[]) ?? []), ...extraRequired])];
  return copy;
}

/** The permission (and token kind) an operation needs, as one sentence for its description. */
export function accessSentence(cfg: RouteConfig): string {
  const parts: string[] = [];
  if (cfg.permission) {
    const [roles] = PERMISSION_MATRIX[cfg.permission];
    parts.push(
      `Permission \`${cfg.permission}\` required (roles: ${roles.join(', ')}); a token without it gets 403 with ` +
        `\`WWW-Authenticate: Bearer error="insufficient_scope", scope="${cfg.permission}"\`.`,
    );
  } else if (cfg.auth === 'client') parts.push('Requires a client token (any role).');
  if (cfg.dashboardOnly) parts.push('Requires a dashboard (login) token; API-credential tokens get 403.');
  return parts.join(' ');
}

/** The route's schema as the document shows it (validation keeps the original). */
function documentSchema(schema: Schema, route: RouteOptions): Schema {
  if (!schema || schema.hide) return schema;
  const cfg = (route.config ?? {}) as RouteConfig;
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) as string;
  const out: Schema = { ...schema };
  out.operationId = schema.operationId ?? deriveOperationId(method, route.url);
  const access = accessSentence(cfg);
  if (access) out.description = [schema.description, access].filter(Boolean).join('\n\n');
  for (const part of ['querystring', 'body', 'params'] as const)
    if (schema[part]) out[part] = forDocument(schema[part], [], part === 'body');
  if (schema.response)
    out.response = Object.fromEntries(
      Object.entries(schema.response as Schema).map(([status, s]) => [status, markNamed(s)]),
    );
  if (schema.headers || cfg.idempotency) {
    const headers = (schema.headers as Schema | undefined) ?? { type: 'object', properties: {} };
    // The one description of the key wins over a route's own: minLength 1 (an empty key is 400) and
    // an example, so the docs page's request samples send a value. Validation keeps the route's
    // optional header, so a missing key is the service's 400 `{detail}`, never a 422.
    const withKey = cfg.idempotency
      ? {
          ...headers,
          properties: {
            ...((headers.properties as Schema | undefined) ?? {}),
            'x-idempotency-key': {
              type: 'string',
              minLength: 1,
              maxLength: 255,
              example: 'order-42-attempt-1',
              description:
                cfg.idempotency === 'required'
                  ? 'Required and non-empty (missing or empty: 400 `X-Idempotency-Key must not be empty`): the same key with the same body replays the original (200); another body 409; still in flight 409'
                  : 'Optional; the same key with the same body replays the original; another body 409; empty 400',
            },
          },
        }
      : headers;
    out.headers = forDocument(withKey, cfg.idempotency === 'required' ? ['x-idempotency-key'] : []);
  }
  out['x-svc-errors'] = errorStatusesOf(method, schema, cfg);
  return out;
}

function isPlainErrorResponse(response: unknown): boolean {
  const schema = (response as { content?: Record<string, { schema?: Schema }> }).content?.['application/json']
    ?.schema;
  const props = schema?.properties as Schema | undefined;
  const keys = Object.keys(props ?? {})
    .sort()
    .join(',');
  return (
    !!props &&
    (keys === 'detail' || keys === [...ERROR_SCHEMA_FIELDS].sort().join(',')) &&
    (props.detail as Schema | undefined)?.type === 'string' &&
    (response as Schema).description === 'Default Response'
  );
}

/** Turns each operation's derived error statuses into references to the shared error answers. */
function addErrorResponses(doc: Schema): Schema {
  doc.components ??= {};
  const components = doc.components as Schema;
  components.schemas = { ...((components.schemas as Schema) ?? {}), ...COMPONENT_SCHEMAS };
  const used = new Set<ErrorStatus>();
  for (const item of Object.values((doc.paths as Record<string, Record<string, Schema>>) ?? {})) {
    for (const op of Object.values(item)) {
      const statuses = op['x-svc-errors'] as ErrorStatus[] | undefined;
      delete op['x-svc-errors'];
      if (!statuses) continue;
      op.responses ??= {};
      const responses = op.responses as Schema;
      // An error a route declared in schema.response with the plain `{detail}` body gets the
      // shared answer too (its description and headers, e.g. 429's Retry-After).
      for (const [code, response] of Object.entries(responses))
        if (Number(code) in ERROR_RESPONSES && isPlainErrorResponse(response)) {
          delete responses[code];
          statuses.push(Number(code) as ErrorStatus);
        }
      statuses.sort((a, b) => a - b);
      for (const status of statuses)
        if (!(String(status) in responses)) {
          responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status][0]}` };
          used.add(status);
        }
    }
  }
  components.responses = Object.fromEntries([...used].sort().map((s) => ERROR_RESPONSES[s]));
  return doc;
}

export const openapiPlugin = fp(
  async (app: FastifyInstance, opts: { publicUrl: string }) => {
    registerSchemaNames();
    app.addHook('onRoute', (route: RouteOptions) => {
      const cfg = (route.config ?? {}) as RouteConfig;
      if (!route.schema) return;
      const schema = route.schema as Record<string, unknown>;
      if (cfg.permission || cfg.auth === 'client') schema.security = [{ bearerAuth: [] }];
      else if (cfg.auth === 'staff') schema.security = [{ staffBearerAuth: [] }];
      else if (cfg.auth === 'public') schema.security = [];
    });

    await app.register(swagger, {
      transform: ({ schema, url, route }) => ({
        schema: documentSchema(schema as Schema, route) as never,
        url,
      }),
      transformObject: (document) =>
        finishDocument(
          addErrorResponses((document as unknown as { openapiObject: Schema }).openapiObject) as OpenApiDoc,
        ) as never,
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Payments Platform API',
          version: 'v1',
          description:
            'Pay-by-bank payments, KYC/KYB verification, opcos and projects, workflows and signed webhooks. ' +
            'Errors are `{detail: string}`; validation errors are 422 `{detail: [{loc, msg, type}]}`. ' +
            'Any request may also be refused by the HTTP layer before it reaches an operation: ' +
            '431 (header block too large), 408 (request too slow), 400 (not HTTP), in the same format.\n\n' +
            `New here? Start with the ${guideLink('quickstart', 'quickstart')}: from credentials to a paid link and a verified webhook.\n\n` +
            'Client library: **@svc/sdk** (TypeScript, typed from this document, with webhook verification): ' +
            'every operation shows its call under the `@svc/sdk` code sample, after ' +
            '`const svc = createClient({ baseUrl, apiKey, apiSecret })` (`packages/sdk` in the service repository).',
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        },
        servers: [{ url: opts.publicUrl }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            staffBearerAuth: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: 'Staff token (admin API)',
            },
          },
        },
      },
    });
    // The documents are built once (routes do not change after start).
    let merchant: OpenApiDoc | null = null;
    let staff: OpenApiDoc | null = null;
    const merchantDoc = () => {
      merchant ??= merchantDocument(app.swagger() as unknown as OpenApiDoc);
      return merchant;
    };
    const staffDoc = () => {
      staff ??= staffDocument(app.swagger() as unknown as OpenApiDoc);
      return staff;
    };
    // The reference pages: /docs (merchant API only) and /docs/staff.
    await app.register(docsPages, {
      documentOf: (spec) => (spec.includes('/admin/') ? staffDoc() : merchantDoc()) as unknown as OutlineDoc,
    });
    // The guides (docs/guides/*.md): /docs/guides and /docs/guides/<slug>.
    await app.register(docsGuides);

    // Serialized and compressed once: the merchant document is about 650 KB of JSON.
    let merchantJson: CompressedText | null = null;
    let staffJson: CompressedText | null = null;
    app.get(
      '/api/v1/openapi.json',
      { schema: { hide: true }, config: { auth: 'public' } },
      async (req, reply) => {
        merchantJson ??= new CompressedText(JSON.stringify(merchantDoc()));
        return merchantJson.send(req, reply, 'application/json', 'no-cache');
      },
    );
    app.get(
      '/api/v1/admin/openapi.json',
      { schema: { hide: true }, config: { auth: 'public' } },
      async (req, reply) => {
        staffJson ??= new CompressedText(JSON.stringify(staffDoc()));
        return staffJson.send(req, reply, 'application/json', 'no-cache');
      },
    );
  },
  { name: 'openapi' },
);
