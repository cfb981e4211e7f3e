import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { testEngine } from '../helpers/db';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx.close());

describe('health, readiness, metrics, docs', () => {
  it('/healthz and /readyz', async () => {
    expect((await ctx.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await ctx.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', database: testEngine() });
  });

  it('/metrics exposes request counters and latency histograms by route and status', async () => {
    await ctx.app.inject({ url: '/healthz' });
    const res = await ctx.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_requests_total{method="GET",route="/healthz",status_code="200"}');
    expect(res.body).toContain('http_request_duration_seconds_bucket');
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const doc = await ctx.app.inject({ url: '/api/v1/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
    const docs = await ctx.app.inject({ url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('/docs/assets/scalar.js');
  });
});
