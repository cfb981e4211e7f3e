/**
 * The merchant and staff OpenAPI documents: named component schemas, one tag spelling, OAS 3.1
 * webhooks, staff/provider routes only in the staff document. The docs pages in Chromium:
 * test/browser/docs.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        tags?: string[];
        requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
        responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
      }
    >
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  tags: { name: string }[];
  webhooks?: Record<string, unknown>;
};

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
}, 60_000);
afterAll(() => ctx?.close());

const get = async (url: string) => (await ctx.app.inject({ url })).json() as Doc;

describe('OpenAPI documents', () => {
  it('gives the merchant document no staff or provider routes, and the staff document only those', async () => {
    const merchant = await get('/api/v1/openapi.json');
    const staff = await get('/api/v1/admin/openapi.json');
    const mPaths = Object.keys(merchant.paths);
    const sPaths = Object.keys(staff.paths);
    expect(mPaths).toContain('/api/v1/checkout/paylink');
    expect(mPaths.some((p) => p.startsWith('/api/v1/admin'))).toBe(false);
    expect(mPaths).not.toContain('/api/v1/providers/bank/notifications');
    expect(sPaths.every((p) => p.startsWith('/api/v1/admin') || p.startsWith('/api/v1/providers/'))).toBe(
      true,
    );
    expect(sPaths).toContain('/api/v1/providers/bank/notifications');
    expect(merchant.components.securitySchemes.staffBearerAuth).toBeUndefined();
    expect(staff.components.securitySchemes.bearerAuth).toBeUndefined();
    // together they are the complete document
    const full = ctx.app.swagger() as unknown as Doc;
    expect([...mPaths, ...sPaths].sort()).toEqual(Object.keys(full.paths).sort());
  });

  it('names request and response schemas after the domain, and references them', async () => {
    const doc = await get('/api/v1/openapi.json');
    const paylink = doc.paths['/api/v1/checkout/paylink']!.post!;
    expect(paylink.requestBody!.content['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/PaylinkRequest',
    });
    expect(paylink.responses['201']!.content!['application/json']!.schema.$ref).toBe(
      '#/components/schemas/Transaction',
    );
    expect(doc.components.schemas.PaylinkRequest).toMatchObject({ type: 'object' });
    // every referenced schema exists in this document
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[A-Za-z0-9]+/g) ?? [];
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref.split('/').pop()!], ref).toBeDefined();
  });

  it('spells every tag one way (capitalized) and lists them', async () => {
    const doc = await get('/api/v1/openapi.json');
    const used = new Set(
      Object.values(doc.paths).flatMap((i) => Object.values(i).flatMap((o) => o.tags ?? [])),
    );
    for (const t of used) expect(t, t).toMatch(/^[A-Z]/);
    expect(used).toContain('Payments');
    expect(used).toContain('KYC');
    expect(doc.tags.map((t) => t.name)).toEqual(expect.arrayContaining([...used]));
  });

  it('describes the event payloads in the OAS 3.1 webhooks section', async () => {
    const doc = await get('/api/v1/openapi.json');
    expect(Object.keys(doc.webhooks ?? {})).toEqual(
      expect.arrayContaining(['payment.status_changed', 'webhook.test']),
    );
    const data = doc.components.schemas.PaymentStatusChangedData as { properties: Record<string, unknown> };
    expect(Object.keys(data.properties)).toEqual(
      expect.arrayContaining(['current_payment_status', 'metadata']),
    );
  });

  it("orders tags along a merchant's first day and shows the SDK call of every operation", async () => {
    const merchant = await get('/api/v1/openapi.json');
    expect(merchant.tags.slice(0, 3).map((t) => t.name)).toEqual(['Auth', 'Payments', 'Webhooks']);
    const samples = (method: string, path: string) =>
      (merchant.paths[path]![method] as unknown as { 'x-codeSamples': { label: string; source: string }[] })[
        'x-codeSamples'
      ];
    const paylink = samples('post', '/api/v1/checkout/paylink')[0]!;
    expect(paylink.label).toBe('@svc/sdk');
    expect(paylink.source).toContain("await svc.POST('/api/v1/checkout/paylink'");
    expect(paylink.source).toContain("'X-Idempotency-Key'");
    expect(samples('get', '/api/v1/transactions/{transaction_id}')[0]!.source).toContain(
      "params: { path: { transaction_id: '…' } }",
    );
    for (const item of Object.values(merchant.paths))
      for (const op of Object.values(item))
        expect((op as Record<string, unknown>)['x-codeSamples']).toBeDefined();
    // The reference page says it is loading (and where the document is) until the script replaces it.
    const page = await ctx.app.inject({ url: '/docs' });
    expect(page.body).toContain('Loading the interactive API reference');
  });
});
