/**
 * Partial updates change only what the caller sends. The validator fills schema defaults in, so a
 * PATCH body schema must carry none; and each PATCH route, sent one field, keeps every other one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTemplate } from '../contracts/fixtures';
import { createTestApp, type TestContext } from '../helpers/app';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';

let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx);
});
afterAll(() => ctx?.close());

type Schema = { $ref?: string; default?: unknown } & Record<string, unknown>;
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};

/** JSON pointers (under the operation) of every `default` in a body schema, `$ref`s followed. */
function defaultsIn(doc: Doc, schema: unknown, at: string, seen = new Set<string>()): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Schema;
  if (s.$ref) {
    const name = s.$ref.split('/').pop()!;
    if (seen.has(name)) return [];
    return defaultsIn(doc, doc.components.schemas[name], `${at}(${name})`, new Set([...seen, name]));
  }
  const here = 'default' in s ? [at] : [];
  return here.concat(Object.entries(s).flatMap(([k, v]) => defaultsIn(doc, v, `${at}/${k}`, seen)));
}

/** The stored resource minus what a PATCH legitimately moves. */
const stable = (v: Record<string, unknown>, changed: string[]) => {
  const out = { ...v };
  for (const k of ['updated_at', 'version', ...changed]) delete out[k];
  return out;
};

describe('partial updates', () => {
  it('no PATCH request body schema in the document carries a default', () => {
    const doc = ctx.app.swagger() as unknown as Doc;
    const found: string[] = [];
    let patches = 0;
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        if (method !== 'patch') continue;
        patches++;
        for (const [type, c] of Object.entries(op.requestBody?.content ?? {}))
          found.push(...defaultsIn(doc, c.schema, `PATCH ${path} ${type}`));
      }
    expect(patches).toBeGreaterThan(10);
    expect(found).toEqual([]);
  });

  it('PATCH /contracts/workflows/{id} with only a name keeps expiry, delivery, reminders and cc', async () => {
    const api = call(ctx, w.caller);
    const t = await createTemplate(ctx, w.caller);
    const created = await api('POST', '/contracts/workflows', {
      name: 'Quiet flow',
      description: 'No emails',
      template_ids: [t.template_id],
      expires_in_days: 10,
      reminder_interval_days: 3,
      delivery: 'none',
      cc_recipients: [{ email: 'legal@example.com', when: 'on_send' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const before = created.json();
    const res = await api('PATCH', `/contracts/workflows/${before.flow_id}`, { name: 'Renamed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().name).toBe('Renamed');
    expect(stable(res.json(), ['name'])).toEqual(stable(before, ['name']));
    expect(res.json()).toMatchObject({ expires_in_days: 10, delivery: 'none', reminder_interval_days: 3 });
  });

  it('PATCH /contracts/templates/{id} with only a name keeps roles, fields and the document', async () => {
    const api = call(ctx, w.caller);
    const t = await createTemplate(ctx, w.caller);
    const before = (await api('GET', `/contracts/templates/${t.template_id}`)).json();
    const res = await api('PATCH', `/contracts/templates/${t.template_id}`, { name: 'Renamed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(stable(res.json(), ['name'])).toEqual(stable(before, ['name']));
    // A role sent without signing_order still gets create's default, from the service.
    const roles = before.roles.map((r: { role: string; kind: string }, i: number) =>
      i === 0 ? { role: r.role, kind: r.kind } : r,
    );
    const edited = await api('PATCH', `/contracts/templates/${t.template_id}`, { roles });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().roles[0].signing_order).toBe(1);
  });
});
