/**
 * Every API route must publish request and response schemas (they are both the validation and
 * the OpenAPI document) and declare how it is authenticated.
 */
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { createTestApp, type TestContext } from '../helpers/app';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx.close());

describe('route contracts', () => {
  it('every /api/v1 route has request and response schemas and declared auth', async () => {
    const seen: RouteOptions[] = [];
    const app = await buildApp(ctx.deps, { onRoute: (r) => seen.push(r) });
    await app.ready();
    await app.close();
    const problems: string[] = [];
    for (const r of seen) {
      // the two OpenAPI documents (merchant and staff) describe the others
      if (!r.url.startsWith('/api/v1/') || r.url.endsWith('/openapi.json')) continue;
      const methods = (Array.isArray(r.method) ? r.method : [r.method]).filter((m) => m !== 'HEAD');
      if (methods.length === 0) continue;
      const schema = (r.schema ?? {}) as Record<string, unknown>;
      const cfg = (r.config ?? {}) as { auth?: string; permission?: string; bodyless?: boolean };
      const name = `${methods.join(',')} ${r.url}`;
      if (!schema.response) problems.push(`${name}: no response schema`);
      if (!cfg.permission && !cfg.auth) problems.push(`${name}: no permission or auth declared`);
      const writes = methods.some((m) => ['POST', 'PUT', 'PATCH'].includes(m));
      if (writes && !schema.body && !cfg.bodyless)
        problems.push(`${name}: no body schema (or config.bodyless)`);
      if (r.url.includes(':') && !schema.params) problems.push(`${name}: no params schema`);
    }
    expect(problems).toEqual([]);
  });

  it('publishes every API route in the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ url: '/api/v1/openapi.json' })).json();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of Object.keys(doc.paths ?? {}))
      expect(path.startsWith('/api/v1/') || path.startsWith('/')).toBe(true);
  });

  it('documents the error answers in the spec format beside the success schemas', async () => {
    const doc = (await ctx.app.inject({ url: '/api/v1/openapi.json' })).json();
    const op = doc.paths['/api/v1/transactions/{transaction_id}'].get;
    expect(Object.keys(op.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403', '404', '422', '500']),
    );
    // Error answers are shared: components.responses, then components.schemas.
    const resolve = (ref: string) =>
      ref
        .split('/')
        .slice(1)
        .reduce((node: Record<string, unknown>, key) => node[key] as never, doc);
    const schemaOf = (status: string) => {
      const response = resolve(op.responses[status].$ref) as {
        content: Record<string, { schema: { $ref: string } }>;
      };
      return resolve(response.content['application/json']!.schema.$ref) as {
        properties: { detail: { type: string; items: { required: string[] } } };
      };
    };
    expect(schemaOf('404').properties.detail.type).toBe('string');
    expect(schemaOf('422').properties.detail.items.required).toEqual(['loc', 'msg', 'type']);
    const login = doc.paths['/api/v1/auth/login'].post;
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '422']));
    expect(doc.paths['/healthz'].get.responses['401']).toBeUndefined();
  });
});
