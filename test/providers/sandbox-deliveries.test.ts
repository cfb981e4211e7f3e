/**
 * The sandbox simulators' delayed notifications are timer jobs (src/providers/sandbox-deliveries.ts):
 * a `5555` screening's result and a sandbox VASP's answer are job rows due after the simulated delay,
 * sent by the jobs runner through the signed route; a canceled transfer's answer is removed. The old
 * queue tables are no longer read (no backfill): a job the previous release's backfill wrote from
 * them is sent as any other. The previous release's own statements over them still run after every
 * migration (0041 keeps the table and columns; the next release drops them, and this check with them).
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { jobs, sandboxTravelRuleJobs } from '../../src/db/schema/index';
import { jobKindLabel, timerDefinitions } from '../../src/modules/index';
import { setTimer } from '../../src/platform/jobs/index';
import { SANDBOX_SCREENING_DELIVERY } from '../../src/providers/sandbox-deliveries';
import { SANDBOX_VASP_IDS } from '../../src/providers/travel-rule/simulator';
import { newId } from '../../src/shared/ids';
import { createTestApp, type TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { createKycWorld } from '../kyc/fixtures';
import { api, evm } from '../screening/fixtures';
import { transferBody } from '../travel-rule/fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let caller: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      SVC_SANDBOX_SCREENING_DELAY_SECONDS: '5',
      SVC_SANDBOX_TRAVEL_RULE_DELAY_SECONDS: '2',
      SVC_SCREENING_SYNC_TIMEOUT_MS: '60000',
    },
  });
  call = api(ctx);
  caller = (await createKycWorld(ctx)).caller;
  const put = await call('PUT', '/travel-rule/settings', caller.headers, {
    originator_vasp: { name: 'Acme VASP', country: 'DE' },
  });
  expect(put.statusCode).toBe(200);
}, 120_000);
afterAll(() => ctx?.close());

const jobsOf = (kind: string) => ctx.db.select().from(jobs).where(eq(jobs.kind, kind));
const screening = async (id: string) =>
  (await call('GET', `/screening/wallet/${id}`, caller.headers)).json() as { status: string };
const transfer = async (id: string) =>
  (await call('GET', `/travel-rule/transfers/${id}`, caller.headers)).json() as { status: string };

describe('sandbox deliveries as jobs', () => {
  it("a 5555 screening's result is a job due after the delay, sent by the jobs runner", async () => {
    expect(timerDefinitions.map((d) => d.kind)).toEqual(
      expect.arrayContaining(['sandbox.screening_delivery', 'sandbox.travel_rule_delivery']),
    );
    expect(jobKindLabel('sandbox.screening_delivery')).toBe('Sandbox screening notification');
    expect(jobKindLabel('sandbox.travel_rule_delivery')).toBe('Sandbox travel-rule answer');

    const s = (
      await call('POST', '/screening/wallet', caller.headers, { chain: 'ethereum', address: evm('5555') })
    ).json();
    expect(s.status).toBe('pending');
    const [job] = await jobsOf('sandbox.screening_delivery');
    expect(job).toMatchObject({
      status: 'pending',
      payload: {
        subject: s.screening_id,
        body: { type: 'screening.result', reference: s.screening_id, revision: 1, status: 'completed' },
      },
    });
    expect(job!.runAt.getTime()).toBe(ctx.clock.now().getTime() + 5000);

    ctx.clock.advance(4000);
    await runJobs(ctx);
    expect((await screening(s.screening_id)).status).toBe('pending');
    ctx.clock.advance(1000);
    await runJobs(ctx);
    expect((await screening(s.screening_id)).status).toBe('completed');
    expect((await jobsOf('sandbox.screening_delivery'))[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it("a VASP's answer is a job (logged, not queued, in the network's log); a cancel removes it", async () => {
    const a = (
      await call('POST', '/travel-rule/transfers', caller.headers, transferBody(evm('abcd')))
    ).json();
    expect(a.status).toBe('awaiting_counterparty');
    const answers = (await jobsOf('sandbox.travel_rule_delivery')).filter(
      (j) => (j.payload as { subject: string }).subject === a.transfer_id,
    );
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({
      status: 'pending',
      payload: { body: { type: 'transfer.accepted', reference: a.transfer_id, revision: 2 } },
    });
    const log = await ctx.db
      .select()
      .from(sandboxTravelRuleJobs)
      .where(eq(sandboxTravelRuleJobs.subjectRef, a.transfer_id));
    expect(log.map((l) => l.kind)).toEqual(['sent', 'answer']);
    ctx.clock.advanceSeconds(2);
    await runJobs(ctx);
    expect((await transfer(a.transfer_id)).status).toBe('accepted');

    // Repair asks again later; the transfer is canceled before: its answer is never sent.
    const r = (
      await call(
        'POST',
        '/travel-rule/transfers',
        caller.headers,
        transferBody(evm('abce'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.repair }),
      )
    ).json();
    const pending = () =>
      jobsOf('sandbox.travel_rule_delivery').then((rows) =>
        rows.filter((j) => (j.payload as { subject: string }).subject === r.transfer_id),
      );
    expect(await pending()).toHaveLength(1);
    expect(
      (await call('POST', `/travel-rule/transfers/${r.transfer_id}/cancel`, caller.headers)).json(),
    ).toMatchObject({
      status: 'canceled',
    });
    expect(await pending()).toEqual([]);
  });

  it("no backfill reads the old queue tables; a job the previous release's backfill wrote is sent", async () => {
    const sandboxKinds = ['sandbox.screening_delivery', 'sandbox.travel_rule_delivery'];
    for (const def of timerDefinitions.filter((d) => sandboxKinds.includes(d.kind)))
      expect(def.backfill).toBeUndefined();

    const s = (
      await call('POST', '/screening/wallet', caller.headers, { chain: 'ethereum', address: evm('5555') })
    ).json();
    // As the previous release's backfill wrote it from an old queue row: a `legacy` job of that row's id.
    await ctx.db.delete(jobs).where(eq(jobs.kind, 'sandbox.screening_delivery'));
    const legacyId = '0b5e0000-0000-4000-8000-000000000001';
    await setTimer(ctx.db, ctx.clock, SANDBOX_SCREENING_DELIVERY, {
      payload: {
        id: legacyId,
        subject: s.screening_id,
        body: {
          type: 'screening.result',
          reference: s.screening_id,
          revision: 1,
          status: 'completed',
          risk: {
            risk_level: 'low',
            risk_score: 5,
            sanctions_hit: false,
            categories: [],
            exposures: [],
            cluster: null,
            risk_reasons: [],
          },
        },
        legacy: true,
      },
      runAt: ctx.clock.now(),
    });
    await runJobs(ctx);
    expect((await screening(s.screening_id)).status).toBe('completed');
    expect((await jobsOf('sandbox.screening_delivery'))[0]).toMatchObject({
      status: 'done',
      attempts: 1,
      dedupeKey: `sandbox-delivery:${legacyId}`,
    });
  });
});

describe("the previous release's statements over the old queues, after every migration", () => {
  // Verbatim from that release (`git show 429a3a2:src/providers/sandbox-delivery.timers.ts` and
  // src/providers/travel-rule/simulator.ts, as drizzle renders them).
  it('its backfill select, its claim, its cancel and its log insert still run', async () => {
    const now = ctx.clock.now().toISOString();
    for (const table of ['sandbox_screening_jobs', 'sandbox_travel_rule_jobs']) {
      const due = await ctx.db.execute(
        sql.raw(`select 'sandbox-delivery:' || id::text as key,
                  jsonb_build_object('id', id::text, 'subject', subject_ref, 'body', payload, 'legacy', true) as payload,
                  null::uuid as client_id, due_at as run_at
             from ${table}
            where delivered_at is null and due_at is not null and payload is not null`),
      );
      expect(rowsOf(due)).toEqual([]);
      const claimed = await ctx.db.execute(sql`
        update ${sql.identifier(table)} set delivered_at = ${now}
         where id = ${newId()}::uuid and delivered_at is null returning id`);
      expect(rowsOf(claimed)).toEqual([]);
    }
    const subject = newId();
    await ctx.db.execute(
      sql`insert into "sandbox_travel_rule_jobs" ("id", "subject_ref", "kind", "payload", "due_at", "delivered_at", "created_at") values (${newId()}, ${subject}, ${'sent'}, ${JSON.stringify({ log: { vasp_id: SANDBOX_VASP_IDS.accept } })}, default, default, ${now})`,
    );
    await ctx.db.execute(
      sql`update "sandbox_travel_rule_jobs" set "delivered_at" = ${now} where ("sandbox_travel_rule_jobs"."subject_ref" = ${subject} and "sandbox_travel_rule_jobs"."delivered_at" is null and "sandbox_travel_rule_jobs"."due_at" is not null)`,
    );
    // This release reads the row the old node logged.
    const log = await ctx.db
      .select()
      .from(sandboxTravelRuleJobs)
      .where(eq(sandboxTravelRuleJobs.subjectRef, subject));
    expect(log.map((l) => l.kind)).toEqual(['sent']);
  });
});
