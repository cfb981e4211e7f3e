/**
 * Property-based fuzzing driven by the service's own OpenAPI document: for every operation in it
 * (so routes added later are covered without touching this file), fast-check builds requests from
 * the operation's parameters and body schema, mixing fitting values (real ids of an existing
 * client, so requests reach the handlers) with hostile ones (NUL bytes, lone surrogates, 1e400,
 * wrong types, odd media types, raw non-object bodies, missing or foreign tokens). Every answer
 * must be below 500, in the spec's error format, and a status the operation documents.
 *
 * FUZZ_RUNS sets the runs per operation (default 20).
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { setHarvestRequestBodies } from '../helpers/log-capture';
import { staffHeaders } from '../org/fixtures';
import { createPaylink, createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import {
  asText,
  encodeLoose,
  hostileValue,
  mutatedValueFor,
  type Resolver,
  toJsonText,
  valueFor,
} from './fuzz-values';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
  security?: Record<string, unknown>[];
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

// One app for the whole file; its document is read at collection time, so each operation is its own test.
const ctx: TestContext = await createTestApp();
const doc = ctx.app.swagger() as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
let world: PaymentWorld;
let staff: Record<string, string>;
let resolver: Resolver;

beforeAll(async () => {
  setHarvestRequestBodies(false);
  world = await createPaymentWorld(ctx);
  const payment = await createPaylink(ctx, world);
  staff = (await staffHeaders(ctx)).headers;
  resolver = {
    resolve: (s) => {
      let node = s;
      for (let i = 0; i < 5 && typeof node.$ref === 'string'; i++) {
        const name = (node.$ref as string).split('/').pop()!;
        node = doc.components.schemas[name] ?? {};
      }
      return node;
    },
    knownIds: {
      project_id: [world.projectId],
      opco_id: [world.opcoId],
      user_id: [world.userId],
      business_customer_id: [world.businessCustomerId],
      business_id: [world.businessCustomerId],
      transaction_id: [payment.transaction_id],
      client_id: [world.caller.clientId],
      account_id: [world.caller.accountId],
    },
  };
}, 120_000);
afterAll(() => ctx.close());

interface FuzzRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body:
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; type: string | undefined; text: string }
    | undefined;
  auth: 'valid' | 'none' | 'garbage' | 'other';
}

const RAW_BODIES: [string | undefined, string][] = [
  ['application/json', 'null'],
  ['application/json', '[]'],
  ['application/json', '"text"'],
  ['application/json', '12'],
  ['application/json', '{'],
  ['application/json', ''],
  ['application/json', '{"a":"\\u0000"}'],
  ['application/json', '{"a":1e400}'],
  ['application/json', `${'['.repeat(5000)}${']'.repeat(5000)}`],
  ['application/x-www-form-urlencoded', 'a=1&b=2'],
  ['text/plain', 'hello'],
  ['application/xml', '<a/>'],
  ['multipart/form-data; boundary=x', '--x--'],
  [undefined, '{"a":1}'],
];

function requestArb(op: Operation): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters ?? [];
  // Parameters that fit, or fit except one made hostile.
  const part = (where: Parameter['in']) => {
    const ps = params.filter((p) => p.in === where && p.name !== 'authorization');
    const fitting = fc.record(
      Object.fromEntries(
        ps.map((p) => {
          const v = valueFor(p.schema, resolver, p.name, 1, 0);
          return [p.name, where === 'path' || p.required ? v : fc.option(v, { nil: undefined, freq: 2 })];
        }),
      ),
    );
    if (ps.length === 0) return fitting;
    return fc.oneof(
      fitting,
      fc
        .tuple(fitting, fc.constantFrom(...ps.map((p) => p.name)), hostileValue)
        .map(([values, name, hostile]) => ({ ...values, [name]: hostile })),
    );
  };
  const jsonSchema = op.requestBody?.content['application/json']?.schema;
  const body: fc.Arbitrary<FuzzRequest['body']> = jsonSchema
    ? fc.oneof(
        {
          // A body that fits the schema, or one place in it made hostile, or hostility scattered around.
          arbitrary: fc
            .oneof(
              { arbitrary: valueFor(jsonSchema, resolver, '', 0, 0), weight: 3 },
              { arbitrary: mutatedValueFor(jsonSchema, resolver), weight: 5 },
              { arbitrary: valueFor(jsonSchema, resolver, '', 0, 15), weight: 1 },
            )
            .map((value) => ({ kind: 'json' as const, value })),
          weight: 8,
        },
        {
          arbitrary: fc
            .constantFrom(...RAW_BODIES)
            .map(([type, text]) => ({ kind: 'raw' as const, type, text })),
          weight: 2,
        },
      )
    : fc.option(
        fc.constantFrom(...RAW_BODIES).map(([type, text]) => ({ kind: 'raw' as const, type, text })),
        { nil: undefined, freq: 3 },
      );
  return fc.record({
    path: part('path'),
    query: part('query'),
    headers: part('header'),
    body,
    auth: fc.oneof(
      { arbitrary: fc.constant('valid' as const), weight: 17 },
      { arbitrary: fc.constantFrom('none' as const, 'garbage' as const, 'other' as const), weight: 3 },
    ),
  });
}

async function tokenHeaders(op: Operation, auth: FuzzRequest['auth']): Promise<Record<string, string>> {
  if (auth === 'none') return {};
  if (auth === 'garbage') return { authorization: 'Bearer \u0001not.a.token' };
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
  if (auth === 'other') return schemes.includes('staffBearerAuth') ? world.caller.headers : staff;
  if (schemes.includes('staffBearerAuth')) return staff;
  // A fresh owner of the same client per request: logout or a role change cannot spoil the next one.
  if (schemes.includes('bearerAuth'))
    return (await createTestClient(ctx, { clientId: world.caller.clientId })).headers;
  return {};
}

function urlOf(template: string, req: FuzzRequest): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeLoose(asText(req.path[name])));
  const query = Object.entries(req.query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeLoose(asText(v))}`)
    .join('&');
  return query ? `${path}?${query}` : path;
}

function headerText(v: unknown): string {
  // Header values travel as latin1: keep NUL and control characters (light-my-request passes them on).
  return [...asText(v)].map((ch) => (ch.charCodeAt(0) > 0xff ? '?' : ch)).join('');
}

function checkAnswer(op: Operation, res: LightMyRequestResponse, describeReq: () => string) {
  const where = () =>
    `${op.operationId} -> ${res.statusCode} ${res.body.slice(0, 300)}\n  request: ${describeReq()}`;
  expect(res.statusCode, where()).toBeLessThan(500);
  expect(Object.keys(op.responses), `undocumented status: ${where()}`).toContain(String(res.statusCode));
  if (res.statusCode < 400) return;
  expect(res.headers['content-type'], where()).toMatch(/^application\/json/);
  const body = res.json() as { detail: unknown; error_description?: unknown };
  // A refused bearer token's 401 repeats its WWW-Authenticate error_description; nothing else adds fields.
  const challenge = /error_description="([^"]*)"/.exec(String(res.headers['www-authenticate'] ?? ''))?.[1];
  if (res.statusCode === 401 && challenge !== undefined) {
    expect(Object.keys(body), where()).toEqual(['detail', 'error_description']);
    expect(body.error_description, where()).toBe(challenge);
  } else expect(Object.keys(body), where()).toEqual(['detail']);
  if (res.statusCode === 422) {
    expect(Array.isArray(body.detail), where()).toBe(true);
    for (const d of body.detail as { loc: unknown; msg: unknown; type: unknown }[]) {
      expect(Array.isArray(d.loc), where()).toBe(true);
      expect(typeof d.msg, where()).toBe('string');
      expect(typeof d.type, where()).toBe('string');
    }
  } else expect(typeof body.detail, where()).toBe('string');
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method]! })),
);

describe.each(['openapi-driven fuzzing'])('%s', () => {
  it('covers every operation of the document', () => {
    expect(operations.length).toBeGreaterThan(50);
  });

  for (const { path, method, op } of operations) {
    it(`${method.toUpperCase()} ${path}`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArb(op), async (req) => {
          const headers: Record<string, string> = { ...(await tokenHeaders(op, req.auth)) };
          for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = headerText(v);
          let payload: string | undefined;
          if (req.body?.kind === 'json') {
            headers['content-type'] = 'application/json';
            payload = toJsonText(req.body.value);
          } else if (req.body?.kind === 'raw') {
            if (req.body.type) headers['content-type'] = req.body.type;
            payload = req.body.text;
          }
          const url = urlOf(path, req);
          const res = await ctx.app.inject({ method: method.toUpperCase() as 'GET', url, headers, payload });
          checkAnswer(
            op,
            res,
            () => `${method.toUpperCase()} ${url} ${JSON.stringify(headers)} ${payload?.slice(0, 300)}`,
          );
        }),
        { numRuns: RUNS },
      );
    }, 120_000);
  }
});
