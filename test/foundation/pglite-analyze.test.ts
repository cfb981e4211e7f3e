/**
 * PGlite has no autovacuum: the maintenance worker analyzes the database so the planner has table
 * statistics. It runs on PGlite only; PostgreSQL's autovacuum does the same there.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkers } from '../../src/workers/index';
import { createPgliteAnalyzeWorker } from '../../src/workers/pglite-analyze';
import { createTestApp, type TestContext } from '../helpers/app';
import { testEngine } from '../helpers/db';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx?.close());

const reltuples = async (table: string) => {
  const res = await ctx.db.execute(sql`select reltuples::int as n from pg_class where relname = ${table}`);
  return (res as unknown as { rows: { n: number }[] }).rows[0]!.n;
};

describe('PGlite analyze worker', () => {
  it('is one of the workers on PGlite only', () => {
    const names = createWorkers(ctx.deps).map((w) => w.name);
    expect(names.includes('pglite-analyze')).toBe(testEngine() === 'pglite');
  });

  it('gives the planner statistics of a table that was never analyzed', async () => {
    await ctx.db.execute(sql`create table analyze_probe (id int primary key, v text)`);
    await ctx.db.execute(sql`insert into analyze_probe select g, 'x' from generate_series(1, 2500) g`);
    expect(await reltuples('analyze_probe')).toBeLessThan(1); // never analyzed (-1) or empty
    await createPgliteAnalyzeWorker(ctx.deps).runOnce();
    expect(await reltuples('analyze_probe')).toBe(2500);
  });
});
