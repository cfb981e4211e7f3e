/** Webhook triggers: publish returns the secret once, signature rules, rotation, unknown token, idempotency. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowDefinitions } from '../../src/db/schema/index';
import { WorkflowMessages } from '../../src/modules/workflows/workflows.messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { eventsOf } from '../org/fixtures';
import { api, drain, signTrigger, simpleGraph } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  a = api(ctx, owner);
});
afterAll(() => ctx?.close());

function trigger(url: string, rawBody: string, headers: Record<string, string>) {
  return ctx.app.inject({
    method: 'POST',
    url: new URL(url).pathname,
    headers: { 'content-type': 'application/json', ...headers },
    payload: rawBody,
  });
}

describe('webhook triggers', () => {
  it('publish returns the trigger URL and the secret once; GET never shows it; the secret is encrypted at rest', async () => {
    const wf = await a.create({ name: 'hook', graph: simpleGraph('webhook') });
    expect(wf.trigger_url).toBeNull();
    const published = await a.publish(wf.definition_id);
    expect(published.trigger_secret).toMatch(/^wfsec_/);
    expect(published.trigger_url).toMatch(/^http:\/\/localhost:8000\/api\/v1\/workflow-triggers\/wft_/);
    const got = (await a.call('GET', `/workflows/${wf.definition_id}`)).json();
    expect(got).not.toHaveProperty('trigger_secret');
    expect(got.trigger_url).toBe(published.trigger_url);
    const [row] = await ctx.db
      .select()
      .from(workflowDefinitions)
      .where(eq(workflowDefinitions.id, wf.definition_id));
    expect(row?.triggerSecretEnc).not.toContain(published.trigger_secret);
  });

  it('a signed request starts a run with the body as input (202); the run executes', async () => {
    const wf = await a.createPublished(simpleGraph('webhook'));
    const body = JSON.stringify({ name: 'Zoe' });
    const res = await trigger(wf.trigger_url, body, signTrigger(wf.trigger_secret, body, ctx.clock.now()));
    expect(res.statusCode, res.body).toBe(202);
    const { run_id, status, replayed } = res.json();
    expect({ status, replayed }).toEqual({ status: 'pending', replayed: false });
    await drain(ctx);
    const run = await a.run(run_id);
    expect(run).toMatchObject({ status: 'completed', source: 'webhook', input: { name: 'Zoe' } });
    expect(run.steps[0].output).toEqual({ greeting: 'hello Zoe' });
    const started = await eventsOf(ctx, owner.clientId, 'workflow.run.started');
    expect(started.map((e) => e.data)).toContainEqual({ run_id, workflow_definition_id: wf.definition_id });
  });

  it('bad, missing, stale or foreign signatures are 401; an unknown token is 404', async () => {
    const wf = await a.createPublished(simpleGraph('webhook'));
    const body = JSON.stringify({ name: 'x' });
    const now = ctx.clock.now();
    const good = signTrigger(wf.trigger_secret, body, now);
    const cases: Record<string, string>[] = [
      {},
      { 'x-svc-timestamp': good['x-svc-timestamp']! },
      { ...good, 'x-svc-signature': `sha256=${'0'.repeat(64)}` },
      signTrigger('wfsec_another', body, now),
      signTrigger(wf.trigger_secret, body, new Date(now.getTime() - 301_000)),
      signTrigger(wf.trigger_secret, JSON.stringify({ name: 'tampered' }), now),
    ];
    for (const headers of cases) {
      const res = await trigger(wf.trigger_url, body, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json().detail).toBe(WorkflowMessages.invalidTriggerSignature);
    }
    const unknown = await trigger('http://x/api/v1/workflow-triggers/wft_nope', body, good);
    expect(unknown.statusCode).toBe(404);
    // A fresh-enough timestamp within the tolerance is accepted.
    const ok = await trigger(
      wf.trigger_url,
      body,
      signTrigger(wf.trigger_secret, body, new Date(now.getTime() - 299_000)),
    );
    expect(ok.statusCode).toBe(202);
  });

  it('rotation returns a new secret once; the old one stops at once', async () => {
    const wf = await a.createPublished(simpleGraph('webhook'));
    const rot = await a.call('POST', `/workflows/${wf.definition_id}/trigger-secret`);
    expect(rot.statusCode).toBe(200);
    const { trigger_secret, trigger_url } = rot.json();
    expect(trigger_secret).toMatch(/^wfsec_/);
    expect(trigger_secret).not.toBe(wf.trigger_secret);
    expect(trigger_url).toBe(wf.trigger_url);
    const body = '{}';
    const old = await trigger(wf.trigger_url, body, signTrigger(wf.trigger_secret, body, ctx.clock.now()));
    expect(old.statusCode).toBe(401);
    const fresh = await trigger(wf.trigger_url, body, signTrigger(trigger_secret, body, ctx.clock.now()));
    expect(fresh.statusCode).toBe(202);
  });

  it('a manual or draft workflow has no trigger secret (400)', async () => {
    const manual = await a.createPublished(simpleGraph('manual'));
    const res = await a.call('POST', `/workflows/${manual.definition_id}/trigger-secret`);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(WorkflowMessages.noTriggerSecret);
    const draft = await a.create({ name: 'd', graph: simpleGraph('webhook') });
    expect((await a.call('POST', `/workflows/${draft.definition_id}/trigger-secret`)).statusCode).toBe(400);
  });

  it('X-Idempotency-Key dedups triggers; a non-object body is 400; an archived workflow refuses', async () => {
    const wf = await a.createPublished(simpleGraph('webhook'));
    const body = JSON.stringify({ name: 'once' });
    const headers = {
      ...signTrigger(wf.trigger_secret, body, ctx.clock.now()),
      'x-idempotency-key': 'evt_1',
    };
    const first = await trigger(wf.trigger_url, body, headers);
    const second = await trigger(wf.trigger_url, body, headers);
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.json()).toMatchObject({ run_id: first.json().run_id, replayed: true });

    const arr = '[1,2]';
    const bad = await trigger(wf.trigger_url, arr, signTrigger(wf.trigger_secret, arr, ctx.clock.now()));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toBe(WorkflowMessages.invalidTriggerBody);

    await a.call('POST', `/workflows/${wf.definition_id}/archive`);
    const archived = await trigger(
      wf.trigger_url,
      body,
      signTrigger(wf.trigger_secret, body, ctx.clock.now()),
    );
    expect(archived.statusCode).toBe(400);
    expect(archived.json().detail).toBe(WorkflowMessages.archived);
  });
});
