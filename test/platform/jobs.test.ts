import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobs } from '../../src/db/schema/index';
import { enqueueJobId } from '../../src/platform/jobs/enqueue';
import {
  createJobRunner,
  defineJob,
  enqueueJob,
  jobRegistry,
  PermanentJobError,
  purgeFinishedJobs,
  runDueJobs,
  runJobsNow,
} from '../../src/platform/jobs/index';
import { createTestApp, type TestContext } from '../helpers/app';
import { recordStatements } from '../helpers/statement-count';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});
beforeEach(async () => {
  await ctx.db.delete(jobs);
});

const ran: { kind: string; payload: Record<string, unknown>; attempt: number }[] = [];
let failTimes = 0;
const echo = defineJob<{ n: number }>({
  kind: 'test.echo',
  maxAttempts: 3,
  backoffSeconds: [10, 20],
  async run(_deps, payload, { attempt }) {
    ran.push({ kind: 'test.echo', payload, attempt });
    if (failTimes > 0) {
      failTimes--;
      throw new Error('smtp down', { cause: new Error('ECONNREFUSED') });
    }
  },
});
const deadLetters: string[] = [];
const permanent = defineJob<{ id: string }>({
  kind: 'test.permanent',
  async run() {
    throw new PermanentJobError('resource is gone');
  },
  async onDead(_deps, payload, error) {
    deadLetters.push(`${payload.id}: ${error}`);
  },
});
const defs = jobRegistry([echo, permanent]);

async function allJobs() {
  return ctx.db.select().from(jobs).orderBy(jobs.kind, jobs.runAt);
}

describe('jobs', () => {
  it('exists only when the enqueuing transaction commits, and a dedupe key enqueues once', async () => {
    await ctx.db
      .transaction(async (tx) => {
        await enqueueJob(tx, ctx.clock, echo, { payload: { n: 1 } });
        throw new Error('rollback');
      })
      .catch(() => {});
    expect(await allJobs()).toHaveLength(0);

    expect(await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n: 2 }, dedupeKey: 'k' })).toBe(true);
    expect(await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n: 3 }, dedupeKey: 'k' })).toBe(false);
    expect(await enqueueJob(ctx.db, ctx.clock, permanent, { payload: { id: 'x' }, dedupeKey: 'k' })).toBe(
      true,
    );
    expect((await allJobs()).map((j) => j.kind)).toEqual(['test.echo', 'test.permanent']);
  });

  it('runs a due job once and marks it done; a timer waits for its time', async () => {
    ran.length = 0;
    await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n: 1 } });
    await enqueueJob(ctx.db, ctx.clock, echo, {
      payload: { n: 2 },
      runAt: new Date(ctx.clock.now().getTime() + 60_000),
    });
    expect(await runDueJobs(ctx.deps, defs)).toBe(1);
    expect(await runDueJobs(ctx.deps, defs)).toBe(0);
    expect(ran.map((r) => r.payload.n)).toEqual([1]);
    ctx.clock.advanceSeconds(60);
    expect(await runDueJobs(ctx.deps, defs)).toBe(1);
    expect(ran.map((r) => r.payload.n)).toEqual([1, 2]);
    const rows = await allJobs();
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['done', 1],
      ['done', 1],
    ]);
  });

  it('retries a failure with the backoff, keeps the last error, and dies after the last attempt', async () => {
    ran.length = 0;
    failTimes = 3;
    await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n: 7 } });
    await runDueJobs(ctx.deps, defs);
    let [row] = await allJobs();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastError: 'smtp down: ECONNREFUSED' });
    expect(row!.runAt.getTime() - ctx.clock.now().getTime()).toBe(10_000);

    ctx.clock.advanceSeconds(9);
    expect(await runDueJobs(ctx.deps, defs)).toBe(0);
    ctx.clock.advanceSeconds(1);
    await runDueJobs(ctx.deps, defs);
    [row] = await allJobs();
    expect(row!.runAt.getTime() - ctx.clock.now().getTime()).toBe(20_000);
    ctx.clock.advanceSeconds(20);
    await runDueJobs(ctx.deps, defs);
    [row] = await allJobs();
    expect(row).toMatchObject({ status: 'dead', attempts: 3 });
    expect(row!.finishedAt).not.toBeNull();
    ctx.clock.advanceSeconds(3600);
    expect(await runDueJobs(ctx.deps, defs)).toBe(0);
    expect(ran.map((r) => r.attempt)).toEqual([1, 2, 3]);
  });

  it('runJobsNow gives a just-committed job its first attempt; a failure is left to the backoff', async () => {
    ran.length = 0;
    const id = await enqueueJobId(ctx.db, ctx.clock, echo, { payload: { n: 11 } });
    await runJobsNow(ctx.deps, [echo as never], [id, null]);
    expect(ran.map((r) => [r.payload.n, r.attempt])).toEqual([[11, 1]]);
    await runJobsNow(ctx.deps, [echo as never], [id]); // done: never run twice
    expect(ran).toHaveLength(1);
    failTimes = 1;
    const failing = await enqueueJobId(ctx.db, ctx.clock, echo, { payload: { n: 12 } });
    await runJobsNow(ctx.deps, [echo as never], [failing]);
    const row = (await allJobs()).find((j) => j.id === failing)!;
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await runDueJobs(ctx.deps, defs)).toBe(0);
    ctx.clock.advanceSeconds(10);
    expect(await runDueJobs(ctx.deps, defs)).toBe(1);
    expect(ran.map((r) => [r.payload.n, r.attempt])).toEqual([
      [11, 1],
      [12, 1],
      [12, 2],
    ]);
  });

  it('a permanent error or an unknown kind dies at once; onDead runs once', async () => {
    deadLetters.length = 0;
    await enqueueJob(ctx.db, ctx.clock, permanent, { payload: { id: 'c1' } });
    await enqueueJob(ctx.db, ctx.clock, { kind: 'test.unknown' }, { payload: {} });
    await runDueJobs(ctx.deps, defs);
    const rows = await allJobs();
    expect(rows.map((r) => [r.kind, r.status, r.lastError])).toEqual([
      ['test.permanent', 'dead', 'resource is gone'],
      ['test.unknown', 'dead', 'no handler for job kind test.unknown'],
    ]);
    expect(deadLetters).toEqual(['c1: resource is gone']);
  });

  it("a node's runner leaves a kind it does not know to the nodes that know it (a rolling deploy)", async () => {
    ran.length = 0;
    await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n: 21 } });
    await enqueueJob(ctx.db, ctx.clock, { kind: 'test.next_release_kind' }, { payload: {} });
    const runner = createJobRunner(ctx.deps, [echo as never, permanent as never], { pollMs: 50 });
    try {
      expect(await runner.runOnce()).toBe(1);
      expect(await runner.runOnce()).toBe(0);
    } finally {
      await runner.stop();
    }
    const rows = await allJobs();
    expect(rows.map((r) => [r.kind, r.status, r.attempts, r.lastError])).toEqual([
      ['test.echo', 'done', 1, null],
      ['test.next_release_kind', 'pending', 0, null],
    ]);
    // A node of the release that knows the kind runs it.
    const next = defineJob<Record<string, never>>({ kind: 'test.next_release_kind', async run() {} });
    expect(await runDueJobs(ctx.deps, jobRegistry([next]), { onlyDefinedKinds: true })).toBe(1);
    expect((await allJobs()).map((r) => r.status)).toEqual(['done', 'done']);
  });

  it('a job whose runner died is claimed again after its lease, and the stale runner cannot complete it', async () => {
    ran.length = 0;
    await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n: 9 } });
    // A runner claims it and dies (simulated: claim without running).
    await ctx.db.execute(
      sql`update jobs set status = 'running', attempts = 1, run_at = ${new Date(ctx.clock.now().getTime() + 300_000)}`,
    );
    expect(await runDueJobs(ctx.deps, defs)).toBe(0);
    ctx.clock.advanceSeconds(300);
    expect(await runDueJobs(ctx.deps, defs)).toBe(1);
    const [row] = await allJobs();
    expect(row).toMatchObject({ status: 'done', attempts: 2 });
    expect(ran.map((r) => r.attempt)).toEqual([2]);
  });

  it('two runners at once run each job once', async () => {
    ran.length = 0;
    for (let n = 0; n < 30; n++) await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n } });
    const counts = await Promise.all([
      runDueJobs(ctx.deps, defs, { batch: 20 }),
      runDueJobs(ctx.deps, defs, { batch: 20 }),
    ]);
    const left = await runDueJobs(ctx.deps, defs, { batch: 20 });
    expect(counts[0]! + counts[1]! + left).toBe(30);
    expect(new Set(ran.map((r) => r.payload.n)).size).toBe(30);
    expect(ran).toHaveLength(30);
  });

  it('an idle tick is one statement', async () => {
    const log = recordStatements();
    try {
      expect(await runDueJobs(ctx.deps, defs)).toBe(0);
    } finally {
      log.stop();
    }
    expect(log.texts).toHaveLength(1);
  });

  it('finished jobs are purged after the retention', async () => {
    await enqueueJob(ctx.db, ctx.clock, echo, { payload: { n: 1 } });
    await enqueueJob(ctx.db, ctx.clock, echo, {
      payload: { n: 2 },
      runAt: new Date(ctx.clock.now().getTime() + 86_400_000 * 30),
    });
    await runDueJobs(ctx.deps, defs);
    ctx.clock.advanceSeconds(7 * 86400 - 1);
    expect(await purgeFinishedJobs(ctx.deps, 7)).toBe(0);
    ctx.clock.advanceSeconds(2);
    expect(await purgeFinishedJobs(ctx.deps, 7)).toBe(1);
    expect((await allJobs()).map((j) => j.status)).toEqual(['pending']);
  });
});
