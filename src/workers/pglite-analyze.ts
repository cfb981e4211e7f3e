/**
 * PGlite runs PostgreSQL in single-user mode, without autovacuum: no table is ever analyzed, so the
 * planner takes every table for nearly empty and picks plans for a few rows (it sorted every due
 * webhook delivery to claim 32 of them instead of reading them off the index in order). This worker
 * does autovacuum's analyze on PGlite: `ANALYZE` of the whole database at start and every
 * SVC_PGLITE_ANALYZE_SECONDS. ANALYZE samples at most 30,000 rows per table, so its cost does not
 * grow with the data, but it holds PGlite's one connection while it runs. Dead rows are left to
 * PostgreSQL's opportunistic page pruning (a full VACUUM would block the connection for a time that
 * grows with the database). On PostgreSQL autovacuum does this and the worker is not started.
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { loopWorker, type Worker } from './loop';

export async function analyzeDatabase(deps: Deps): Promise<number> {
  await deps.db.execute(sql`analyze`);
  return 0; // never "more to do": the loop waits for the interval
}

export function createPgliteAnalyzeWorker(deps: Deps): Worker {
  return loopWorker(
    'pglite-analyze',
    deps.config.pgliteAnalyzeSeconds * 1000,
    () => analyzeDatabase(deps),
    deps.log,
  );
}
