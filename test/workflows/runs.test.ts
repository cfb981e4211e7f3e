/** Runs and the engine: node kinds against the real services, events, steps, failures, wait + condition, cancel, idempotency, crash recovery. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, kycUsers, transactions, workflowRunSteps, workflowRuns } from '../../src/db/schema/index';
import { WorkflowMessages } from '../../src/modules/workflows/workflows.messages';
import { processDueWorkflowRuns } from '../../src/modules/workflows/workflows-engine.service';
import { M } from '../../src/shared/messages';
import { createTestApp, type MemoryMailer, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { eventsOf, soleTraderBody } from '../org/fixtures';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { api, drain, setGraph, simpleGraph } from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;
let a: ReturnType<typeof api>;
let receiver: Receiver;
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx);
  a = api(ctx, w.caller);
  receiver = await startReceiver((req) =>
    req.path.startsWith('/fail')
      ? { status: 500, body: 'boom' }
      : { status: 200, body: '{"ok":true,"score":7}' },
  );
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

const mailer = () => ctx.mailer as MemoryMailer;

describe('a run through several node kinds', () => {
  it('executes every step against the real services, records steps and emits the events', async () => {
    const graph = setGraph([
      {
        id: 'user',
        type: 'create_user',
        config: { email: '{{input.email}}', first_name: '{{input.first_name}}' },
        next: 'kyc',
      },
      { id: 'kyc', type: 'kyc', config: { user_id: '{{steps.user.user_id}}' }, next: 'pay' },
      {
        id: 'pay',
        type: 'transfer',
        config: {
          project_id: '{{input.project_id}}',
          user_id: '{{steps.user.user_id}}',
          amount: '{{input.amount}}',
          currency: 'EUR',
        },
        next: 'opco',
      },
      { id: 'opco', type: 'opco', config: { opco_id: '{{input.opco_id}}' }, next: 'project' },
      { id: 'project', type: 'project', config: { project_id: '{{input.project_id}}' }, next: 'calc' },
      {
        id: 'calc',
        type: 'set',
        config: { values: { label: 'order {{input.order}}', amount: '{{input.amount}}' } },
        next: 'hook',
      },
      {
        id: 'hook',
        type: 'http',
        config: { url: `${receiver.url}/ok`, body: { tx: '{{steps.pay.transaction_id}}' } },
        next: 'mail',
      },
      {
        id: 'mail',
        type: 'email',
        config: { to: '{{input.email}}', subject: 'Pay', text: 'Pay at {{steps.pay.checkout_url}}' },
        next: 'tell',
      },
      { id: 'tell', type: 'notify', config: { subject: 'Done', text: 'Run for {{input.email}} done' } },
    ]);
    const wf = await a.createPublished(graph);
    const input = {
      email: 'ann@example.com',
      first_name: 'Ann',
      project_id: w.projectId,
      opco_id: w.opcoId,
      amount: '12.50',
      order: 42,
    };
    const run = await a.start(wf.definition_id, input);
    expect(run).toMatchObject({
      status: 'pending',
      workflow_definition_id: wf.definition_id,
      input,
      source: 'api',
    });
    expect(run.run_id).toMatch(/^[0-9a-f-]{36}$/);
    const started = await eventsOf(ctx, w.caller.clientId, 'workflow.run.started');
    expect(started.map((e) => e.data)).toContainEqual({
      run_id: run.run_id,
      workflow_definition_id: wf.definition_id,
    });

    await drain(ctx);
    const done = await a.run(run.run_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.error_message).toBeNull();
    expect(done.finished_at).not.toBeNull();
    expect(done.steps.map((s: { step_id: string; status: string }) => [s.step_id, s.status])).toEqual(
      ['user', 'kyc', 'pay', 'opco', 'project', 'calc', 'hook', 'mail', 'tell'].map((id) => [
        id,
        'completed',
      ]),
    );
    const out = Object.fromEntries(
      done.steps.map((s: { step_id: string; output: unknown }) => [s.step_id, s.output]),
    );
    expect(out.user).toMatchObject({ email: 'ann@example.com', kyc_status: 'none', created: true });
    expect(out.kyc).toMatchObject({ status: 'pending' });
    expect(out.kyc.verification_url).toContain('/verify/');
    expect(out.pay).toMatchObject({
      status: 'pending',
      amount: '12.50',
      currency: 'EUR',
      project_id: w.projectId,
    });
    expect(out.opco).toMatchObject({ opco_id: w.opcoId, status: 'activated' });
    expect(out.project).toMatchObject({ project_id: w.projectId, is_frozen: false });
    expect(out.calc).toEqual({ label: 'order 42', amount: '12.50' });
    expect(out.hook).toEqual({ status: 200, body: { ok: true, score: 7 } });
    const hookReq = receiver.on('/ok').at(-1)!;
    expect(JSON.parse(hookReq.rawBody)).toEqual({ tx: out.pay.transaction_id });
    expect(hookReq.headers['idempotency-key']).toBe(`${run.run_id}:hook`);
    expect(mailer().lastTo('ann@example.com')?.text).toBe(`Pay at ${out.pay.checkout_url}`);
    expect(out.tell).toMatchObject({ channel: 'email', subject: 'Done' });

    // The payment link really exists, and the user really exists and went pending with the KYC link.
    const [tx] = await ctx.db.select().from(transactions).where(eq(transactions.id, out.pay.transaction_id));
    expect(tx?.userId).toBe(out.user.user_id);
    const [user] = await ctx.db.select().from(kycUsers).where(eq(kycUsers.id, out.user.user_id));
    expect(user?.kycStatus).toBe('pending');

    const steps = (await eventsOf(ctx, w.caller.clientId, 'workflow.step.completed')).filter(
      (e) => (e.data as { run_id: string }).run_id === run.run_id,
    );
    expect(steps.map((e) => (e.data as { step_id: string }).step_id)).toEqual(
      done.steps.map((s: { step_id: string }) => s.step_id),
    );
    expect(steps[0]!.data).toEqual({
      run_id: run.run_id,
      step_id: 'user',
      node_type: 'create_user',
      output: out.user,
    });
    const completed = await eventsOf(ctx, w.caller.clientId, 'workflow.run.completed');
    expect(completed.map((e) => e.data)).toContainEqual({
      run_id: run.run_id,
      workflow_definition_id: wf.definition_id,
    });

    // Listing with filters.
    const list = (
      await a.call('GET', `/workflow-runs?workflow_definition_id=${wf.definition_id}&status=completed`)
    ).json();
    expect(list.runs.map((r: { run_id: string }) => r.run_id)).toEqual([run.run_id]);
    expect(list.pagination.total).toBe(1);
    const none = (
      await a.call('GET', `/workflow-runs?workflow_definition_id=${wf.definition_id}&status=failed`)
    ).json();
    expect(none.pagination).toMatchObject({ total: 0, total_pages: 0 });
  });
});

describe('business onboarding node kinds', () => {
  it('create_business_customer (find-or-create), kyb link, opco_create draft and notify to the client address', async () => {
    const wf = await a.createPublished(
      setGraph([
        {
          id: 'biz',
          type: 'create_business_customer',
          config: { company_name: '{{input.company}}', country: 'gb', email: '{{input.email}}' },
          next: 'kyb',
        },
        {
          id: 'kyb',
          type: 'kyb',
          config: { business_customer_id: '{{steps.biz.business_customer_id}}' },
          next: 'opco',
        },
        {
          id: 'opco',
          type: 'opco_create',
          config: { opco: soleTraderBody({ name: '{{input.company}}' }) },
          next: 'tell',
        },
        {
          id: 'tell',
          type: 'notify',
          config: { subject: 'Onboarded', text: '{{input.company}}: {{steps.opco.opco_id}}' },
        },
      ]),
    );
    const input = { company: 'Widget Ltd', email: 'ops@widget.example.com' };
    const first = await a.start(wf.definition_id, input);
    await drain(ctx);
    const got = await a.run(first.run_id);
    expect(got.status, got.error_message).toBe('completed');
    const out = Object.fromEntries(
      got.steps.map((s: { step_id: string; output: unknown }) => [s.step_id, s.output]),
    );
    expect(out.biz).toMatchObject({ company_name: 'Widget Ltd', kyb_status: 'none', created: true });
    expect(out.kyb).toMatchObject({ status: 'pending' });
    expect(out.opco).toMatchObject({ name: 'Widget Ltd', status: 'draft' });
    const [client] = await ctx.db.select().from(clients).where(eq(clients.id, w.caller.clientId));
    expect(out.tell).toMatchObject({ channel: 'email', to: client!.email });
    expect(mailer().lastTo(client!.email)?.text).toBe(`Widget Ltd: ${out.opco.opco_id}`);

    // The same email again finds the existing business customer.
    const second = await a.start(wf.definition_id, input);
    await drain(ctx);
    const again = await a.run(second.run_id);
    expect(again.steps[0].output).toMatchObject({
      business_customer_id: out.biz.business_customer_id,
      created: false,
    });
  });

  it('an invalid opco body fails the step with the field named', async () => {
    const wf = await a.createPublished(
      setGraph([{ id: 'opco', type: 'opco_create', config: { opco: soleTraderBody({ mcc: 12 }) } }]),
    );
    const run = await a.start(wf.definition_id);
    await drain(ctx);
    const got = await a.run(run.run_id);
    expect(got.status).toBe('failed');
    expect(got.error_message).toMatch(/^Step 'opco' \(opco_create\) failed: opco\.mcc /);
  });
});

describe('failures', () => {
  it('a failing http step fails the run with a clear error_message and workflow.run.failed', async () => {
    const wf = await a.createPublished(
      setGraph([
        { id: 'first', type: 'set', config: { values: { a: 1 } }, next: 'call' },
        {
          id: 'call',
          type: 'http',
          config: { url: `${receiver.url}/fail?token=secret`, method: 'GET' },
          next: 'never',
        },
        { id: 'never', type: 'set', config: { values: {} } },
      ]),
    );
    const run = await a.start(wf.definition_id);
    await drain(ctx);
    const got = await a.run(run.run_id);
    expect(got.status).toBe('failed');
    expect(got.error_message).toBe(`Step 'call' (http) failed: HTTP GET ${receiver.url}/fail answered 500`);
    expect(got.error_message).not.toContain('secret');
    expect(got.steps.map((s: { step_id: string; status: string }) => [s.step_id, s.status])).toEqual([
      ['first', 'completed'],
      ['call', 'failed'],
    ]);
    expect(got.steps[1].error).toBe(got.error_message);
    const failed = await eventsOf(ctx, w.caller.clientId, 'workflow.run.failed');
    expect(failed.map((e) => e.data)).toContainEqual({
      run_id: run.run_id,
      workflow_definition_id: wf.definition_id,
      error_message: got.error_message,
    });
    const stepEvents = (await eventsOf(ctx, w.caller.clientId, 'workflow.step.completed')).filter(
      (e) => (e.data as { run_id: string }).run_id === run.run_id,
    );
    expect(stepEvents.map((e) => (e.data as { step_id: string }).step_id)).toEqual(['first']);
  });

  it("an http step failing against a trigger URL keeps the trigger's token out of the error (masked like in the log)", async () => {
    const token = 'wft_93MTAnRv95qtSCakxNiKnv4x7yBgib71';
    const wf = await a.createPublished(
      setGraph([
        {
          id: 'call',
          type: 'http',
          config: { url: `${receiver.url}/fail/api/v1/workflow-triggers/${token}`, method: 'POST' },
        },
      ]),
    );
    const run = await a.start(wf.definition_id);
    await drain(ctx);
    const got = await a.run(run.run_id);
    expect(got.status).toBe('failed');
    expect(got.error_message).toBe(
      `Step 'call' (http) failed: HTTP POST ${receiver.url}/fail/api/v1/workflow-triggers/*** answered 500`,
    );
    expect(JSON.stringify(got)).not.toContain(token.slice(4));
  });

  it('a service error becomes the step error (a payment for an unknown user)', async () => {
    const wf = await a.createPublished(
      setGraph([
        {
          id: 'pay',
          type: 'transfer',
          config: { project_id: w.projectId, user_id: '{{input.user_id}}', amount: '5.00', currency: 'EUR' },
        },
      ]),
    );
    const run = await a.start(wf.definition_id, { user_id: '00000000-0000-4000-8000-000000000000' });
    await drain(ctx);
    const got = await a.run(run.run_id);
    expect(got.status).toBe('failed');
    expect(got.error_message).toBe(`Step 'pay' (transfer) failed: ${M.userNotFoundCreateFirst}`);
    const bad = await a.start(wf.definition_id, { user_id: 'not-a-uuid' });
    await drain(ctx);
    expect((await a.run(bad.run_id)).error_message).toBe(
      "Step 'pay' (transfer) failed: user_id must be a UUID (got 'not-a-uuid')",
    );
  });
});

describe('wait and condition', () => {
  it('parks the run until the due time, then branches on a comparison over the context', async () => {
    const wf = await a.createPublished(
      setGraph([
        { id: 'start', type: 'set', config: { values: { score: '{{input.score}}' } }, next: 'pause' },
        { id: 'pause', type: 'wait', config: { seconds: 600 }, next: 'check' },
        {
          id: 'check',
          type: 'condition',
          config: { left: '{{steps.start.score}}', operator: 'gte', right: 50 },
          on_true: 'high',
          on_false: 'low',
        },
        { id: 'high', type: 'set', config: { values: { band: 'high' } } },
        { id: 'low', type: 'set', config: { values: { band: 'low' } } },
      ]),
    );
    const hi = await a.start(wf.definition_id, { score: 80 });
    const lo = await a.start(wf.definition_id, { score: 10 });
    await drain(ctx);
    for (const r of [hi, lo]) {
      const got = await a.run(r.run_id);
      expect(got.status).toBe('waiting');
      expect(got.current_step_id).toBe('pause');
      expect(got.steps.at(-1)).toMatchObject({ step_id: 'pause', status: 'waiting' });
    }
    ctx.clock.advance(599 * 1000);
    await drain(ctx);
    expect((await a.run(hi.run_id)).status).toBe('waiting');
    ctx.clock.advance(1000);
    await drain(ctx);
    const high = await a.run(hi.run_id);
    expect(high.status).toBe('completed');
    expect(high.steps.map((s: { step_id: string }) => s.step_id)).toEqual([
      'start',
      'pause',
      'check',
      'high',
    ]);
    expect(high.steps[1].output).toMatchObject({ waited_seconds: 600 });
    expect(high.steps[2].output).toEqual({ result: true });
    const low = await a.run(lo.run_id);
    expect(low.steps.map((s: { step_id: string }) => s.step_id)).toEqual(['start', 'pause', 'check', 'low']);
  });

  it('cancel stops a waiting run; a finished run cannot be canceled', async () => {
    const wf = await a.createPublished(
      setGraph([
        { id: 'pause', type: 'wait', config: { seconds: 60 }, next: 'after' },
        { id: 'after', type: 'set', config: { values: {} } },
      ]),
    );
    const run = await a.start(wf.definition_id);
    await drain(ctx);
    const res = await a.call('POST', `/workflow-runs/${run.run_id}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('canceled');
    ctx.clock.advance(120_000);
    await drain(ctx);
    const got = await a.run(run.run_id);
    expect(got.status).toBe('canceled');
    expect(got.steps).toHaveLength(1);
    expect(got.steps[0].status).toBe('canceled');
    const again = await a.call('POST', `/workflow-runs/${run.run_id}/cancel`);
    expect(again.statusCode).toBe(400);
    expect(again.json().detail).toBe(WorkflowMessages.runNotCancelable('canceled'));
  });
});

describe('idempotency and recovery', () => {
  it('X-Idempotency-Key: same key and input return the same run; another input is 409', async () => {
    const wf = await a.createPublished(simpleGraph());
    const headers = { 'x-idempotency-key': 'order-1' };
    const first = await a.call(
      'POST',
      `/workflows/${wf.definition_id}/runs`,
      { input: { name: 'a' } },
      headers,
    );
    expect(first.statusCode).toBe(201);
    const replay = await a.call(
      'POST',
      `/workflows/${wf.definition_id}/runs`,
      { input: { name: 'a' } },
      headers,
    );
    expect(replay.statusCode).toBe(200);
    expect(replay.json().run_id).toBe(first.json().run_id);
    const other = await a.call(
      'POST',
      `/workflows/${wf.definition_id}/runs`,
      { input: { name: 'b' } },
      headers,
    );
    expect(other.statusCode).toBe(409);
    expect(other.json().detail).toBe(M.idempotencyPayloadMismatch);
    const started = (await eventsOf(ctx, w.caller.clientId, 'workflow.run.started')).filter(
      (e) => (e.data as { run_id: string }).run_id === first.json().run_id,
    );
    expect(started).toHaveLength(1);
  });

  it('after a crash mid-step, an idempotent step is retried without a second payment; a kyc step is not retried', async () => {
    const wf = await a.createPublished(
      setGraph([
        {
          id: 'pay',
          type: 'transfer',
          config: { project_id: w.projectId, user_id: w.userId, amount: '7.00', currency: 'EUR' },
        },
      ]),
    );
    const run = await a.start(wf.definition_id);
    await drain(ctx);
    const done = await a.run(run.run_id);
    const txId = done.steps[0].output.transaction_id;
    // Simulate a crash after the payment was created but before the result was recorded.
    await ctx.db
      .update(workflowRuns)
      .set({
        status: 'running',
        currentStepId: 'pay',
        finishedAt: null,
        dueAt: ctx.clock.now(),
        stepOutputs: {},
      })
      .where(eq(workflowRuns.id, run.run_id));
    await ctx.db
      .update(workflowRunSteps)
      .set({ status: 'running', output: null, finishedAt: null })
      .where(eq(workflowRunSteps.runId, run.run_id));
    await drain(ctx);
    const again = await a.run(run.run_id);
    expect(again.status).toBe('completed');
    expect(again.steps[0].output.transaction_id).toBe(txId);
    const txs = await ctx.db.select().from(transactions).where(eq(transactions.id, txId));
    expect(txs).toHaveLength(1);

    const kycWf = await a.createPublished(
      setGraph([{ id: 'kyc', type: 'kyc', config: { user_id: w.userId } }]),
    );
    const kycRun = await a.start(kycWf.definition_id);
    // A step left `running` by a crashed engine, its lease lapsed.
    await ctx.db.insert(workflowRunSteps).values({
      runId: kycRun.run_id,
      clientId: w.caller.clientId,
      stepId: 'kyc',
      nodeType: 'kyc',
      status: 'running',
      startedAt: ctx.clock.now(),
    });
    await drain(ctx);
    const failed = await a.run(kycRun.run_id);
    expect(failed.status).toBe('failed');
    expect(failed.error_message).toContain("Step 'kyc' (kyc) was interrupted");
  });

  it('two engines ticking at once execute each step exactly once (SKIP LOCKED + lease)', async () => {
    const wf = await a.createPublished(
      setGraph([
        { id: 'one', type: 'set', config: { values: { n: 1 } }, next: 'two' },
        { id: 'two', type: 'http', config: { url: `${receiver.url}/ok`, body: { run: 'x' } } },
      ]),
    );
    const runs = await Promise.all([1, 2, 3].map(() => a.start(wf.definition_id)));
    const before = receiver.on('/ok').length;
    await Promise.all([processDueWorkflowRuns(ctx.deps), processDueWorkflowRuns(ctx.deps)]);
    await drain(ctx);
    for (const r of runs) expect((await a.run(r.run_id)).status).toBe('completed');
    expect(receiver.on('/ok').length - before).toBe(3);
    const ids = new Set(runs.map((r) => r.run_id));
    const stepEvents = (await eventsOf(ctx, w.caller.clientId, 'workflow.step.completed')).filter((e) =>
      ids.has((e.data as { run_id: string }).run_id),
    );
    expect(stepEvents).toHaveLength(6);
  });

  it("another client's run is 404", async () => {
    const wf = await a.createPublished(simpleGraph());
    const run = await a.start(wf.definition_id);
    const other = api(ctx, await createTestClient(ctx));
    expect((await other.call('GET', `/workflow-runs/${run.run_id}`)).statusCode).toBe(404);
    expect((await other.call('POST', `/workflow-runs/${run.run_id}/cancel`)).statusCode).toBe(404);
    expect((await other.call('POST', `/workflows/${wf.definition_id}/runs`, { input: {} })).statusCode).toBe(
      404,
    );
    expect((await other.call('GET', '/workflow-runs')).json().runs).toHaveLength(0);
  });
});
