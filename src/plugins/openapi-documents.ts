/**
 * Central finishing of the OpenAPI document (applied to every module's routes, so no module has to
 * repeat it):
 *  - tags: one spelling per tag (`payments`, `bulk payment links` -> `Payments`, `Bulk payment links`);
 *  - tags: a description each, linking to its guide (src/platform/openapi/tags.ts);
 *  - components.schemas: the shared schemas a feature exports appear once under their domain name
 *    (`Transaction`, `TransactionList`, …; src/plugins/openapi-names.ts and
 *    src/platform/openapi/hoist.ts) and are referenced; a body or response a route declares inline
 *    gets a name after its path (`/auth/me` -> `AuthMeResponse`);
 *  - success responses: a real description ("The transaction", "A page of transactions");
 *  - webhooks (OAS 3.1): the signed envelope and, per event type, its `data` and the delivery
 *    headers (X-SVC-* and the Standard Webhooks ones);
 *  - two documents: the merchant API (/api/v1/openapi.json, the docs page) and the staff document
 *    (/api/v1/admin/openapi.json: `/api/v1/admin/…` and the providers' notification routes).
 * `app.swagger()` stays the complete document (tests and the status recorder read it).
 */
import { EVENT_DATA, eventDataSchemaName } from '../modules/webhooks/event-data/event-data.schemas';
import { EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../outbox/event-types';
import { hoistNamedSchemas } from '../platform/openapi/hoist';
import { describeResponses } from '../platform/openapi/response-descriptions';
import { tagDescription } from '../platform/openapi/tags';
import type { OpenApiDoc, Operation, Schema } from '../platform/openapi/types';

export type { OpenApiDoc } from '../platform/openapi/types';

const ACRONYMS = new Set(['kyc', 'kyb', 'api', 'mfa']);
/** `bulk payment links` -> `Bulk payment links`, `kyc` -> `KYC`. */
export function normalizeTag(tag: string): string {
  const words = tag.trim().split(/\s+/);
  return words
    .map((w, i) => {
      if (ACRONYMS.has(w.toLowerCase())) return w.toUpperCase();
      return i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w;
    })
    .join(' ');
}

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** `/api/v1/auth/team-accounts/me/change-password` -> `AuthTeamAccountsMeChangePassword` (parameters left out). */
export function pathSchemaBase(path: string): string {
  return path
    .replace(/^\/api\/v1\//, '/')
    .split('/')
    .filter((seg) => seg && !seg.startsWith('{'))
    .flatMap((seg) => seg.split(/[_.-]/))
    .filter(Boolean)
    .map(pascal)
    .join('');
}

/**
 * Names the request bodies and success responses that are still inline (one-off schemas a route
 * declares itself; shared ones are already references, see hoistNamedSchemas): after the path
 * (`/auth/team-accounts/me/change-password` -> `AuthTeamAccountsMeChangePasswordRequest`), or
 * after the operationId when two operations share the path.
 */
function nameSchemas(doc: OpenApiDoc): void {
  doc.components.schemas ??= {};
  const schemas = doc.components.schemas;
  const name = (bases: string[], schema: Schema): Schema => {
    if (!schema || schema.$ref || (schema.type !== 'object' && schema.type !== 'array')) return schema;
    let n = bases.find((b) => !schemas[b]) ?? bases[bases.length - 1]!;
    for (let i = 2; schemas[n]; i++) n = `${bases[bases.length - 1]}${i}`;
    schemas[n] = schema;
    return { $ref: `#/components/schemas/${n}` };
  };
  for (const [path, item] of Object.entries(doc.paths))
    for (const op of Object.values(item)) {
      if (!op.operationId) continue;
      const bases = [pathSchemaBase(path), pascal(op.operationId)];
      const body = (op.requestBody?.content as Record<string, Schema> | undefined)?.['application/json'];
      if (body?.schema)
        body.schema = name(
          bases.map((b) => `${b}Request`),
          body.schema as Schema,
        );
      const successes = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
      for (const status of successes) {
        const media = ((op.responses![status] as Schema).content as Record<string, Schema> | undefined)?.[
          'application/json'
        ];
        const suffix = successes.length > 1 ? `Response${status}` : 'Response';
        if (media?.schema)
          media.schema = name(
            bases.map((b) => `${b}${suffix}`),
            media.schema as Schema,
          );
      }
    }
}

/** The headers of every delivery (the signature scheme is on the envelope's description). */
const DELIVERY_HEADERS: Schema[] = [
  ['X-SVC-Event-Id', { type: 'string', format: 'uuid' }, 'The event id (same as `id`): deduplicate on it'],
  ['X-SVC-Event-Type', { type: 'string' }, 'The event type (same as `type`)'],
  ['X-SVC-Event-Version', { type: 'string', const: 'v1' }, 'Always `v1`'],
  [
    'X-SVC-Timestamp',
    { type: 'string', pattern: '^[0-9]+$' },
    'Unix seconds at signing; reject older than 300 s',
  ],
  [
    'X-SVC-Signature',
    { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
    '`sha256=` + hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the `whsec_…` secret',
  ],
  // Standard Webhooks (www.standardwebhooks.com): the same delivery, verifiable with its libraries.
  ['webhook-id', { type: 'string', format: 'uuid' }, 'Standard Webhooks: the event id (same as `id`)'],
  ['webhook-timestamp', { type: 'string', pattern: '^[0-9]+$' }, 'Standard Webhooks: the same Unix seconds'],
  [
    'webhook-signature',
    { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}$' },
    'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed ' +
      'with the base64-decoded text after `whsec_`',
  ],
].map(([name, schema, description]) => ({ name, in: 'header', required: true, description, schema }));

/** A TypeBox schema as plain JSON (its hidden markers dropped). */
const plain = (schema: unknown): Schema => JSON.parse(JSON.stringify(schema)) as Schema;

/**
 * OAS 3.1 `webhooks`: one entry per event type, each the signed envelope with its typed `data`
 * (components.schemas `<Type>Data`, from the TypeBox definitions in
 * src/modules/webhooks/event-data), the delivery headers and an example delivery.
 */
function addWebhooks(doc: OpenApiDoc): void {
  doc.components.schemas ??= {};
  const schemas = doc.components.schemas;
  schemas.WebhookEnvelope = {
    type: 'object',
    required: ['id', 'type', 'version', 'occurred_at', 'client_id', 'data'],
    description:
      'Every delivery: POST with headers `X-SVC-Timestamp` (Unix seconds) and `X-SVC-Signature: sha256=<hex>` = ' +
      'HMAC-SHA256 over `<timestamp>.<raw body>`, the key being the whole `whsec_…` secret. The same delivery ' +
      'also carries the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and `webhook-signature`, ' +
      'so the standardwebhooks libraries verify it as it is. Deduplicate on `id`.',
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: { type: 'string' },
      version: { type: 'string', const: 'v1' },
      occurred_at: { type: 'string', format: 'date-time' },
      client_id: { type: 'string', format: 'uuid' },
      data: { type: 'object', additionalProperties: true },
    },
  };
  const webhooks: Record<string, Schema> = {};
  for (const type of [...EVENT_TYPES, ...SYSTEM_EVENT_TYPES]) {
    const entry = EVENT_DATA[type];
    const name = eventDataSchemaName(type);
    schemas[name] = plain(entry.schema);
    const example = {
      id: '0190f5f5-1111-7aaa-8bbb-cccccccccccc',
      type,
      version: 'v1',
      occurred_at: '2026-11-27T10:15:30.000Z',
      client_id: '0190f5f4-1c2b-7a3e-9d41-2b7c8e5a1f00',
      data: entry.example,
    };
    webhooks[type] = {
      post: {
        operationId: `webhook${pascal(name.replace(/Data$/, ''))}`,
        summary: `Event ${type}`,
        description: (entry.schema as { description?: string }).description,
        tags: ['Webhooks'],
        // The receiver authenticates a delivery by its X-SVC-Signature, not by a token.
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/WebhookEnvelope' },
                  {
                    type: 'object',
                    properties: { type: { const: type }, data: { $ref: `#/components/schemas/${name}` } },
                  },
                ],
              },
              example,
            },
          },
        },
        responses: { '200': { description: 'Any 2xx within the timeout acknowledges the delivery' } },
      },
    };
  }
  doc.webhooks = webhooks;
}

/**
 * The reference's sidebar follows a merchant's first day (sign in, take a payment, hear about it,
 * try it in sandbox, onboard the company, verify payers); the other areas follow alphabetically.
 */
const ONBOARDING_TAGS = ['Auth', 'Payments', 'Webhooks', 'Sandbox', 'Opcos', 'Projects', 'KYC', 'KYB'];

/** The finishing steps on the complete document (see the file comment). */
export function finishDocument(doc: OpenApiDoc): OpenApiDoc {
  const seen = new Set<string>();
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) {
      if (op.tags) op.tags = op.tags.map(normalizeTag);
      for (const t of op.tags ?? []) seen.add(t);
    }
  const rank = (t: string) =>
    ONBOARDING_TAGS.includes(t) ? ONBOARDING_TAGS.indexOf(t) : ONBOARDING_TAGS.length;
  doc.tags = [...seen]
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((name) => ({ name, description: tagDescription(name) }));
  hoistNamedSchemas(doc);
  nameSchemas(doc);
  describeResponses(doc);
  addWebhooks(doc);
  return doc;
}

/** Staff-only paths: the admin API and the routes the payment network and verification provider call. */
export function isStaffPath(path: string, ops: Record<string, Operation>): boolean {
  return (
    path.startsWith('/api/v1/admin/') ||
    path === '/api/v1/admin' ||
    Object.values(ops).some((op) => op.tags?.includes('Providers'))
  );
}

/** Keeps only the components the kept paths (and webhooks) still reference. */
function prune(doc: OpenApiDoc): OpenApiDoc {
  const used = new Set<string>();
  const stack: unknown[] = [doc.paths, doc.webhooks];
  for (const s of Object.values(doc.components.securitySchemes ?? {})) stack.push(s);
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const ref = (node as Schema).$ref;
    if (typeof ref === 'string' && !used.has(ref)) {
      used.add(ref);
      const [, , kind, name] = ref.split('/');
      stack.push((doc.components[kind!] as Record<string, unknown> | undefined)?.[name!]);
    }
    for (const v of Object.values(node as Schema)) if (v && typeof v === 'object') stack.push(v);
  }
  for (const kind of ['schemas', 'responses'] as const) {
    const all = doc.components[kind] as Record<string, Schema> | undefined;
    if (all)
      doc.components[kind] = Object.fromEntries(
        Object.entries(all).filter(([n]) => used.has(`#/components/${kind}/${n}`)),
      );
  }
  const tags = new Set(
    Object.values(doc.paths).flatMap((i) => Object.values(i).flatMap((o) => o.tags ?? [])),
  );
  if (doc.webhooks) tags.add('Webhooks');
  doc.tags = (doc.tags ?? []).filter((t) => tags.has(t.name));
  return doc;
}

function split(full: OpenApiDoc, staff: boolean): OpenApiDoc {
  const doc = JSON.parse(JSON.stringify(full)) as OpenApiDoc;
  doc.paths = Object.fromEntries(
    Object.entries(doc.paths).filter(([p, ops]) => isStaffPath(p, ops) === staff),
  );
  if (staff) {
    delete doc.webhooks;
    doc.info = {
      ...(doc.info as Schema),
      title: 'Payments Platform staff and provider API',
      description:
        'Staff (admin) operations and the notification routes the payment network and verification provider ' +
        'call. Not for merchants: see /api/v1/openapi.json for the merchant API.',
    };
    const sec = doc.components.securitySchemes as Schema | undefined;
    if (sec) delete sec.bearerAuth;
  } else {
    const sec = doc.components.securitySchemes as Schema | undefined;
    if (sec) delete sec.staffBearerAuth;
  }
  return prune(doc);
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/**
 * Our SDK as a client library in the reference: each operation's `x-codeSamples` entry (which the
 * reference shows next to its generated curl and fetch snippets) calls it through @svc/sdk.
 */
export function addSdkSamples(doc: OpenApiDoc): void {
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const params =
        (op.parameters as { in?: string; name?: string; schema?: { example?: unknown } }[] | undefined) ?? [];
      const pathParams = params.filter((p) => p.in === 'path').map((p) => `${p.name}: '…'`);
      const args: string[] = [];
      if (pathParams.length) args.push(`params: { path: { ${pathParams.join(', ')} } }`);
      if (op.requestBody) args.push('body: { /* the request body below */ }');
      const key = params.find((p) => p.in === 'header' && p.name?.toLowerCase() === 'x-idempotency-key');
      if (key)
        args.push(`headers: { 'X-Idempotency-Key': '${String(key.schema?.example ?? 'your-unique-key')}' }`);
      const call = `await svc.${method.toUpperCase()}('${path}'${args.length ? `, {\n  ${args.join(',\n  ')},\n}` : ''});`;
      op['x-codeSamples'] = [
        {
          lang: 'typescript',
          label: '@svc/sdk',
          // svc = createClient({ baseUrl, apiKey, apiSecret }), as in the SDK's README.
          source: `const { data, error } = ${call}`,
        },
      ];
    }
}

/** The merchant API: everything but the staff and provider routes, with the SDK's code samples. */
export const merchantDocument = (full: OpenApiDoc) => {
  const doc = split(full, false);
  addSdkSamples(doc);
  return doc;
};
/** The staff document: the admin API and the provider notification routes. */
export const staffDocument = (full: OpenApiDoc) => split(full, true);
