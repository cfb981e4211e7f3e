/**
 * The sandbox e-signing provider's `+autosign` / `+autodecline` actions are timer jobs
 * (`sandbox.esign_action`, src/providers/sandbox-deliveries.ts): one per invited participant, due
 * SVC_SANDBOX_ESIGN_AUTO_SECONDS after the invitation, sent by the jobs runner on the manual clock
 * through the signed route; a void removes the envelope's pending ones; nothing is written to the
 * previous release's `sandbox_esign_actions`, whose rows not yet done are backfilled and sent once.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractRequests,
  jobs,
  sandboxEsignActions,
  sandboxEsignEnvelopes,
} from '../../src/db/schema/index';
import { jobKindLabel, modules, timerDefinitions } from '../../src/modules/index';
import { jobRegistry, runDueJobs, timersBackfillJob } from '../../src/platform/jobs/index';
import { enqueueTimersBackfill } from '../../src/platform/jobs/timers';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { byRole, call, createTemplate, getReq, send } from './fixtures';

const KIND = 'sandbox.esign_action';
let ctx: TestContext;
let owner: TestCaller;
let templateId: string;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_SANDBOX_ESIGN_AUTO_SECONDS: '5' } });
  owner = await createTestClient(ctx);
  templateId = (await createTemplate(ctx, owner)).template_id;
});
afterAll(() => ctx?.close());

const contractsLoops = (c: TestContext) =>
  modules.find((m) => m.name === 'contracts')?.workers?.(c.deps) ?? [];
const actionsOf = async (envelopeRef: string) =>
  (await ctx.db.select().from(jobs).where(eq(jobs.kind, KIND))).filter(
    (j) => (j.payload as { subject: string }).subject === envelopeRef,
  );
const envelopeOf = async (requestId: string) => {
  const [r] = await ctx.db
    .select({ ref: contractRequests.envelopeRef })
    .from(contractRequests)
    .where(eq(contractRequests.id, requestId));
  return r!.ref!;
};
/** Sends the template to a client signer and a company signer; the request and its envelope's ref. */
const sendToTwo = async (name: string, email: string, companyEmail: string) => {
  const r = await send(ctx, owner, {
    template_id: templateId,
    participants: [
      { role: 'client', name, email },
      { role: 'company', name: 'Co', email: companyEmail },
    ],
  });
  return { r, ref: await envelopeOf(r.contract_request_id) };
};
const revisionOf = async (ref: string) => {
  const [e] = await ctx.db
    .select({ revision: sandboxEsignEnvelopes.revision })
    .from(sandboxEsignEnvelopes)
    .where(eq(sandboxEsignEnvelopes.ref, ref));
  return e!.revision;
};

describe('sandbox e-signing actions as timers', () => {
  it('+autosign is a job due after the delay, sent by the jobs runner at that time', async () => {
    expect(timerDefinitions.map((d) => d.kind)).toContain(KIND);
    expect(jobKindLabel(KIND)).toBe('Sandbox e-signing action');
    // No loop of the contracts feature in sandbox (the reconciliation needs a provider that asks for it).
    expect(contractsLoops(ctx)).toEqual([]);
    const { r, ref } = await sendToTwo('Auto', 'auto+autosign@example.com', 'co1@example.com');
    const client = byRole(r, 'client');
    const [job, ...more] = await actionsOf(ref);
    expect(more).toEqual([]);
    expect(job).toMatchObject({
      status: 'pending',
      dedupeKey: `sandbox-delivery:${ref}:${client.participant_id}`,
      payload: {
        subject: ref,
        body: { envelope_ref: ref, type: 'participant.signed', participant_id: client.participant_id },
      },
    });
    expect(job!.runAt.getTime()).toBe(ctx.clock.now().getTime() + 5000);
    // The simulator's old table is no longer written.
    expect(await ctx.db.select().from(sandboxEsignActions)).toEqual([]);

    ctx.clock.advance(4000);
    await runJobs(ctx);
    expect(byRole(await getReq(ctx, owner, r.contract_request_id), 'client').status).toBe('sent');
    ctx.clock.advance(1000);
    await runJobs(ctx);
    const cur = await getReq(ctx, owner, r.contract_request_id);
    expect(byRole(cur, 'client').status).toBe('completed');
    expect(byRole(cur, 'company').status).toBe('sent');
    expect((await actionsOf(ref))[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('+autodecline declines at its time; a void removes the pending action', async () => {
    const { r: a, ref: refA } = await sendToTwo('Dee', 'dee+autodecline@example.com', 'co2@example.com');
    expect((await actionsOf(refA)).map((j) => j.payload)).toEqual([
      expect.objectContaining({
        body: expect.objectContaining({ type: 'participant.declined', reason: 'Sandbox decline' }),
      }),
    ]);
    ctx.clock.advance(5000);
    await runJobs(ctx);
    const declined = await getReq(ctx, owner, a.contract_request_id);
    expect(declined.status).toBe('declined');
    expect(byRole(declined, 'client').status).toBe('declined');

    const { r: v, ref: refV } = await sendToTwo('Val', 'val+autosign@example.com', 'co3@example.com');
    expect(await actionsOf(refV)).toHaveLength(1);
    const voided = await call(ctx, owner)('POST', `/contracts/requests/${v.contract_request_id}/void`, {
      reason: 'Wrong terms',
    });
    expect(voided.statusCode).toBe(200);
    await runJobs(ctx);
    expect(await actionsOf(refV)).toEqual([]);
    ctx.clock.advance(5000);
    await runJobs(ctx);
    expect(await revisionOf(refV)).toBe(0);
    expect(byRole(await getReq(ctx, owner, v.contract_request_id), 'client').status).toBe('canceled');
  });

  it("the previous release's actions not yet done are backfilled, sent once and marked done", async () => {
    const { r, ref } = await sendToTwo('Lee', 'lee@example.com', 'co4@example.com');
    const client = byRole(r, 'client');
    // As the previous release scheduled it: a row of its table, no job.
    const [legacy] = await ctx.db
      .insert(sandboxEsignActions)
      .values({
        envelopeRef: ref,
        participantId: client.participant_id,
        action: 'participant.signed',
        payload: {},
        dueAt: new Date(ctx.clock.now().getTime() + 5000),
      })
      .returning();
    await enqueueTimersBackfill(ctx.deps);
    await runDueJobs(ctx.deps, jobRegistry([timersBackfillJob(timerDefinitions)]), {
      onlyDefinedKinds: true,
    });
    const [job] = await actionsOf(ref);
    expect(job).toMatchObject({
      status: 'pending',
      dedupeKey: `sandbox-delivery:${legacy!.id}`,
      payload: { legacy: true, body: { type: 'participant.signed', participant_id: client.participant_id } },
    });
    expect(job!.runAt.getTime()).toBe(legacy!.dueAt.getTime());
    ctx.clock.advance(4000);
    await runJobs(ctx);
    expect(byRole(await getReq(ctx, owner, r.contract_request_id), 'client').status).toBe('sent');
    ctx.clock.advance(1000);
    await runJobs(ctx);
    expect(byRole(await getReq(ctx, owner, r.contract_request_id), 'client').status).toBe('completed');
    const [row] = await ctx.db
      .select()
      .from(sandboxEsignActions)
      .where(eq(sandboxEsignActions.id, legacy!.id));
    expect(row!.doneAt).not.toBeNull();
    // A second copy of its timer (a node of either release got there first) sends nothing.
    const revision = await revisionOf(ref);
    await ctx.db.update(jobs).set({ status: 'pending', runAt: ctx.clock.now() }).where(eq(jobs.id, job!.id));
    await runJobs(ctx);
    expect(await revisionOf(ref)).toBe(revision);
    expect((await actionsOf(ref))[0]).toMatchObject({ status: 'done' });
  });
});
