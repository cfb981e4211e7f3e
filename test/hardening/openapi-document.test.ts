/** The generated OpenAPI document passes Redocly's lint (recommended rules) with no errors. */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';

const root = path.resolve(import.meta.dirname, '../..');
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx.close());

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

type Doc = {
  paths: Record<string, Record<string, Op>>;
  components: { responses: Record<string, { headers?: Record<string, unknown> }> };
};
type Op = {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema: { default?: unknown } }[];
  requestBody?: {
    content: Record<
      string,
      { schema: { required?: string[]; properties?: Record<string, { default?: unknown }> } }
    >;
  };
  responses: Record<string, { $ref?: string }>;
};

const doc = () => ctx.app.swagger() as unknown as Doc;
/** A body schema, following its `$ref` into components.schemas (bodies are named centrally). */
type BodySchema = { required?: string[]; properties?: Record<string, { default?: unknown }> };
const deref = (s: (BodySchema & { $ref?: string }) | undefined): BodySchema | undefined =>
  s?.$ref
    ? ((doc() as unknown as { components: { schemas: Record<string, BodySchema> } }).components.schemas[
        s.$ref.split('/').pop()!
      ] as BodySchema)
    : s;
const ops = () =>
  Object.entries(doc().paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );
const op = (method: string, path: string) => doc().paths[`/api/v1${path}`]![method]!;

describe('OpenAPI document', () => {
  it('names every operation with a unique operationId', () => {
    const ids = ops().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(op('get', '/transactions/{transaction_id}/status-events').operationId).toBe(
      'getTransactionsByTransactionIdStatusEvents',
    );
  });

  it('documents 429 with Retry-After and X-RateLimit-* where lockouts and cooldowns exist', () => {
    for (const [method, path] of [
      ['post', '/auth/login'],
      ['post', '/auth/login/verify-otp'],
      ['post', '/auth/login/challenge/send-email-code'],
      ['post', '/auth/register/verify-email'],
      ['post', '/auth/register/resend-verification'],
      ['post', '/auth/api-token'],
      ['post', '/admin/auth/login'],
      ['post', '/transactions/{transaction_id}/refresh-status'],
    ] as const)
      expect(op(method, path).responses['429'], `${method} ${path}`).toEqual({
        $ref: '#/components/responses/TooManyRequests',
      });
    expect(Object.keys(doc().components.responses.TooManyRequests!.headers ?? {})).toEqual([
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
    expect(op('get', '/transactions').responses['429']).toBeUndefined();
  });

  it('marks no defaulted input as required', () => {
    const problems: string[] = [];
    for (const { key, op: o } of ops()) {
      for (const p of o.parameters ?? [])
        if (p.required && p.schema.default !== undefined) problems.push(`${key} ${p.in} ${p.name}`);
      const body = deref(o.requestBody?.content['application/json']?.schema);
      for (const name of body?.required ?? [])
        if (body?.properties?.[name]?.default !== undefined) problems.push(`${key} body ${name}`);
    }
    expect(problems).toEqual([]);
    const paylink = op('post', '/checkout/paylink');
    expect(deref(paylink.requestBody!.content['application/json']!.schema)!.required).not.toContain(
      'expires_in_seconds',
    );
    const page = op('get', '/transactions').parameters!.find((p) => p.name === 'page')!;
    expect(page.required).toBe(false);
  });

  it('requires X-Idempotency-Key on paylink and documents its 400 and 409', () => {
    const paylink = op('post', '/checkout/paylink');
    expect(paylink.parameters!.find((p) => p.name === 'x-idempotency-key')).toMatchObject({
      in: 'header',
      required: true,
    });
    expect(Object.keys(paylink.responses)).toEqual(expect.arrayContaining(['400', '409']));
    const runs = op('post', '/workflows/{definition_id}/runs');
    expect(runs.parameters!.find((p) => p.name === 'x-idempotency-key')).toMatchObject({ required: false });
  });

  it('documents X-Idempotency-Key as required wherever a missing key is refused, non-empty, with an example', () => {
    type Header = { name: string; in: string; required?: boolean; schema: Record<string, unknown> };
    const keyed = ops().flatMap(({ key, op: o }) => {
      const h = (o.parameters as Header[] | undefined)?.find((p) => p.name === 'x-idempotency-key');
      return h ? [{ key, h }] : [];
    });
    expect(keyed.length).toBeGreaterThan(5);
    for (const { key, h } of keyed) {
      expect(h.schema, key).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
      expect(String(h.schema.example ?? ''), key).not.toBe('');
    }
    const required = keyed.filter(({ h }) => h.required).map(({ key }) => key);
    expect(required).toEqual(
      expect.arrayContaining([
        'POST /api/v1/checkout/paylink',
        'POST /api/v1/checkout/paylink/bulk',
        'POST /api/v1/payment-schedules',
        'POST /api/v1/recurring-payments',
      ]),
    );
    expect(required).not.toContain('POST /api/v1/contracts/send');
  });

  it('answers a missing or empty required key with the 400 {detail}, not a 422', async () => {
    const caller = await createTestClient(ctx);
    // Bodies that pass the schema: the key is the service's check, after validation.
    const bodies: Record<string, object> = {
      '/checkout/paylink/bulk': { rows: [] },
      '/payment-schedules': {
        project_id: randomUUID(),
        currency: 'EUR',
        instalments: [{ amount: '10.00', due_date: '2030-01-01' }],
      },
      '/checkout/paylink': {
        amount: '10.00',
        currency: 'EUR',
        project_id: randomUUID(),
        user_id: randomUUID(),
      },
    };
    for (const [url, payload] of Object.entries(bodies))
      for (const headers of [{}, { 'x-idempotency-key': '' }, { 'x-idempotency-key': '   ' }]) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: `/api/v1${url}`,
          headers: { ...caller.headers, ...headers },
          payload,
        });
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}: ${res.body}`).toBe(400);
        expect(res.json()).toEqual({ detail: 'X-Idempotency-Key must not be empty' });
      }
  });

  it('derives the error answers from the declaration', () => {
    const statuses = (method: string, path: string) => Object.keys(op(method, path).responses).sort();
    // body + token + a body naming another resource
    expect(statuses('post', '/projects')).toEqual(
      ['201', '400', '401', '403', '404', '413', '415', '422', '500', '503'].sort(),
    );
    // path parameter, no body
    expect(statuses('get', '/transactions/{transaction_id}')).toEqual(
      ['200', '400', '401', '403', '404', '414', '422', '500', '503'].sort(),
    );
    // public, declared
    expect(statuses('post', '/auth/login')).toEqual(
      ['200', '400', '401', '403', '413', '415', '422', '429', '500', '503'].sort(),
    );
    expect(op('post', '/auth/team/accounts').responses['502']).toBeDefined();
  });

  it('passes Redocly lint with no errors', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(ctx.app.swagger(), null, 2));
    const run = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/redocly'),
      ['lint', file, '--format=json', '--config', path.join(import.meta.dirname, 'redocly.yaml')],
      {
        cwd: dir,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_COLOR: '1',
        },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((err: { stdout: string; stderr: string }) => err);
    fs.rmSync(dir, { recursive: true, force: true });
    const start = run.stdout.indexOf('{');
    expect(start, `redocly printed no report:\n${run.stderr}`).toBeGreaterThanOrEqual(0);
    const report = JSON.parse(run.stdout.slice(start)) as { totals: { errors: number }; problems: Problem[] };
    const errors = report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 120_000);
});
