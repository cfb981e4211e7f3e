/** `q` on the pickers' lists: a case-insensitive prefix of a project's or an opco's name, per client. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opcos, projects } from '../../src/db/schema/index';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { insertOpco, insertProject } from '../payments/fixtures';

let ctx: TestContext;
let a: TestCaller;
let b: TestCaller;
beforeAll(async () => {
  ctx = await createTestApp();
  a = await createTestClient(ctx);
  b = await createTestClient(ctx);
  for (const [caller, names] of [
    [a, ['Berlin Store', 'berlin_outlet', 'Paris Store']],
    [b, ['Berlin Other']],
  ] as const)
    for (const name of names) {
      const opcoId = await insertOpco(ctx, caller.clientId);
      await ctx.db.update(opcos).set({ name }).where(eq(opcos.id, opcoId));
      const projectId = await insertProject(ctx, caller.clientId, opcoId);
      await ctx.db.update(projects).set({ projectName: name }).where(eq(projects.id, projectId));
    }
});
afterAll(() => ctx?.close());

const names = async (path: string, field: string, q: string, caller = a) => {
  const r = await ctx.app.inject({
    url: `/api/v1/${path}?q=${encodeURIComponent(q)}`,
    headers: caller.headers,
  });
  expect(r.statusCode, r.body).toBe(200);
  return (r.json()[path] as Record<string, string>[]).map((x) => x[field]).sort();
};

describe.each([
  ['projects', 'project_name'],
  ['opcos', 'name'],
])('GET /%s?q=', (path, field) => {
  it('matches a case-insensitive prefix of the name, wildcards taken literally', async () => {
    expect(await names(path, field, 'BERLIN')).toEqual(['Berlin Store', 'berlin_outlet']);
    expect(await names(path, field, 'berlin_')).toEqual(['berlin_outlet']);
    expect(await names(path, field, 'store')).toEqual([]);
  });

  it("never lists another client's", async () => {
    expect(await names(path, field, 'berlin', b)).toEqual(['Berlin Other']);
  });

  it('lists everything without q, and refuses an empty q', async () => {
    const all = await ctx.app.inject({ url: `/api/v1/${path}`, headers: a.headers });
    expect(all.json()[path]).toHaveLength(3);
    const empty = await ctx.app.inject({ url: `/api/v1/${path}?q=%20`, headers: a.headers });
    expect(empty.statusCode).toBe(422);
  });
});
