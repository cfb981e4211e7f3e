/** Workflow definitions: CRUD, state rules, templates, fork, archive, graph validation, access. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowMessages } from '../../src/modules/workflows/workflows.messages';
import { WORKFLOW_TEMPLATES } from '../../src/modules/workflows/workflows-templates.service';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api, setGraph, simpleGraph } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  a = api(ctx, owner);
});
afterAll(() => ctx?.close());

const TEMPLATE_ID = WORKFLOW_TEMPLATES[0]!.id;

describe('create, read, list', () => {
  it('creates a DRAFT and reads it back', async () => {
    const res = await a.call('POST', '/workflows', {
      name: 'Greeter',
      description: 'says hi',
      graph: simpleGraph(),
    });
    expect(res.statusCode).toBe(201);
    const wf = res.json();
    expect(wf).toMatchObject({
      name: 'Greeter',
      description: 'says hi',
      status: 'DRAFT',
      is_template: false,
      trigger_type: 'manual',
      trigger_url: null,
      archived_at: null,
    });
    const got = await a.call('GET', `/workflows/${wf.definition_id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().graph).toEqual(simpleGraph());
  });

  it('lists own workflows newest first, then the read-only templates', async () => {
    const caller = await createTestClient(ctx);
    const b = api(ctx, caller);
    const first = await b.create({ name: 'one', graph: simpleGraph() });
    ctx.clock.advance(1000);
    const second = await b.create({ name: 'two', graph: simpleGraph() });
    const res = await b.call('GET', '/workflows');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.workflows.map((w: { definition_id: string }) => w.definition_id)).toEqual([
      second.definition_id,
      first.definition_id,
      ...WORKFLOW_TEMPLATES.map((t) => t.id),
    ]);
    expect(body.workflows[2]).toMatchObject({ is_template: true, status: 'PUBLISHED' });
    expect(body.pagination).toEqual({
      total: 2 + WORKFLOW_TEMPLATES.length,
      page: 1,
      page_size: 20,
      total_pages: 1,
    });

    const page2 = (await b.call('GET', '/workflows?page=2&page_size=2')).json();
    expect(page2.workflows.map((w: { definition_id: string }) => w.definition_id)).toEqual(
      WORKFLOW_TEMPLATES.slice(0, 2).map((t) => t.id),
    );
    const drafts = (await b.call('GET', '/workflows?status=DRAFT')).json();
    expect(drafts.pagination.total).toBe(2);
    const noTemplates = (await b.call('GET', '/workflows?include_templates=false')).json();
    expect(noTemplates.workflows).toHaveLength(2);
    expect((await b.call('GET', '/workflows?page_size=201')).statusCode).toBe(422);
  });

  it("another client's workflow is 404; templates are visible to all", async () => {
    const wf = await a.create({ name: 'mine', graph: simpleGraph() });
    const other = api(ctx, await createTestClient(ctx));
    for (const [method, url] of [
      ['GET', `/workflows/${wf.definition_id}`],
      ['PUT', `/workflows/${wf.definition_id}`],
      ['DELETE', `/workflows/${wf.definition_id}`],
      ['POST', `/workflows/${wf.definition_id}/publish`],
      ['POST', `/workflows/${wf.definition_id}/fork`],
      ['POST', `/workflows/${wf.definition_id}/archive`],
    ] as const) {
      const res = await other.call(
        method,
        url,
        method === 'PUT' ? { name: 'x' } : method === 'POST' ? {} : undefined,
      );
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().detail).toBe(WorkflowMessages.workflowNotFound);
    }
    expect((await other.call('GET', `/workflows/${TEMPLATE_ID}`)).json().is_template).toBe(true);
  });
});

describe('state rules', () => {
  it('edits a draft; a published workflow is immutable (400) and publishing twice is 400', async () => {
    const wf = await a.create({ name: 'draft', graph: simpleGraph() });
    const edited = await a.call('PUT', `/workflows/${wf.definition_id}`, {
      name: 'renamed',
      description: null,
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ name: 'renamed', description: null, status: 'DRAFT' });

    const published = await a.publish(wf.definition_id);
    expect(published).toMatchObject({ status: 'PUBLISHED', trigger_secret: null, trigger_url: null });
    const put = await a.call('PUT', `/workflows/${wf.definition_id}`, { name: 'again' });
    expect(put.statusCode).toBe(400);
    expect(put.json().detail).toBe(WorkflowMessages.notEditable);
    const again = await a.call('POST', `/workflows/${wf.definition_id}/publish`);
    expect(again.statusCode).toBe(400);
    expect(again.json().detail).toBe(WorkflowMessages.alreadyPublished);
  });

  it('deletes a workflow without runs (204); with runs 409', async () => {
    const wf = await a.create({ name: 'tmp', graph: simpleGraph() });
    expect((await a.call('DELETE', `/workflows/${wf.definition_id}`)).statusCode).toBe(204);
    expect((await a.call('GET', `/workflows/${wf.definition_id}`)).statusCode).toBe(404);

    const used = await a.createPublished(simpleGraph());
    await a.start(used.definition_id, { name: 'x' });
    const del = await a.call('DELETE', `/workflows/${used.definition_id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().detail).toBe(WorkflowMessages.hasRuns);
  });

  it('templates are read-only but forkable; forking an own workflow copies it into a new draft', async () => {
    for (const [method, url] of [
      ['PUT', `/workflows/${TEMPLATE_ID}`],
      ['DELETE', `/workflows/${TEMPLATE_ID}`],
      ['POST', `/workflows/${TEMPLATE_ID}/publish`],
      ['POST', `/workflows/${TEMPLATE_ID}/archive`],
    ] as const) {
      const res = await a.call(method, url, method === 'PUT' ? { name: 'x' } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json().detail).toBe(WorkflowMessages.templateReadOnly);
    }
    const run = await a.call('POST', `/workflows/${TEMPLATE_ID}/runs`, { input: {} });
    expect(run.statusCode).toBe(400);

    const fork = await a.call('POST', `/workflows/${TEMPLATE_ID}/fork`, {});
    expect(fork.statusCode).toBe(201);
    expect(fork.json()).toMatchObject({
      status: 'DRAFT',
      is_template: false,
      forked_from_id: TEMPLATE_ID,
      name: WORKFLOW_TEMPLATES[0]!.name,
    });
    expect(fork.json().graph).toEqual(WORKFLOW_TEMPLATES[0]!.graph);

    const published = await a.createPublished(simpleGraph());
    const copy = await a.call('POST', `/workflows/${published.definition_id}/fork`, { name: 'v2' });
    expect(copy.statusCode).toBe(201);
    expect(copy.json()).toMatchObject({
      status: 'DRAFT',
      name: 'v2',
      forked_from_id: published.definition_id,
    });
    expect(copy.json().definition_id).not.toBe(published.definition_id);
    expect((await a.call('PUT', `/workflows/${copy.json().definition_id}`, { name: 'v2b' })).statusCode).toBe(
      200,
    );
  });

  it('archive hides from default lists and refuses new runs; unarchive restores', async () => {
    const caller = await createTestClient(ctx);
    const b = api(ctx, caller);
    const wf = await b.createPublished(simpleGraph());
    const arch = await b.call('POST', `/workflows/${wf.definition_id}/archive`);
    expect(arch.statusCode).toBe(200);
    expect(arch.json().archived_at).not.toBeNull();
    const list = (await b.call('GET', '/workflows?include_templates=false')).json();
    expect(list.workflows).toHaveLength(0);
    const all = (await b.call('GET', '/workflows?include_templates=false&include_archived=true')).json();
    expect(all.workflows).toHaveLength(1);
    const run = await b.call('POST', `/workflows/${wf.definition_id}/runs`, { input: {} });
    expect(run.statusCode).toBe(400);
    expect(run.json().detail).toBe(WorkflowMessages.archived);
    expect((await b.call('POST', `/workflows/${wf.definition_id}/archive`)).statusCode).toBe(200);
    const un = await b.call('POST', `/workflows/${wf.definition_id}/unarchive`);
    expect(un.json().archived_at).toBeNull();
    expect((await b.call('POST', `/workflows/${wf.definition_id}/runs`, { input: {} })).statusCode).toBe(201);
  });

  it('a draft cannot be run', async () => {
    const wf = await a.create({ name: 'draft', graph: simpleGraph() });
    const res = await a.call('POST', `/workflows/${wf.definition_id}/runs`, { input: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(WorkflowMessages.notPublished);
  });

  it('contract nodes are publishable (the publisher needs contracts.send)', async () => {
    const wf = await a.create({
      name: 'with contract',
      graph: setGraph([
        { id: 'start', type: 'set', config: { values: {} }, next: 'sign' },
        { id: 'sign', type: 'contract', config: {} },
      ]),
    });
    const res = await a.call('POST', `/workflows/${wf.definition_id}/publish`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('PUBLISHED');
  });
});

describe('graph validation (422 with loc at the node)', () => {
  async function locOf(graph: unknown) {
    const res = await a.call('POST', '/workflows', { name: 'bad', graph });
    expect(res.statusCode, res.body).toBe(422);
    return res.json().detail[0].loc;
  }
  const ok = (id: string, next?: string) => ({
    id,
    type: 'set',
    config: { values: {} },
    ...(next ? { next } : {}),
  });

  it('an unknown node type', async () => {
    expect(await locOf(setGraph([ok('a', 'b'), ok('b', 'c'), { id: 'c', type: 'teleport' }]))).toEqual([
      'body',
      'graph',
      'nodes',
      2,
      'type',
    ]);
  });
  it('a bad per-type config', async () => {
    expect(await locOf(setGraph([ok('a', 'b'), { id: 'b', type: 'wait', config: { seconds: 0 } }]))).toEqual([
      'body',
      'graph',
      'nodes',
      1,
      'config',
      'seconds',
    ]);
    expect(
      await locOf(setGraph([{ id: 'a', type: 'create_user', config: { email: 'x@example.com' } }])),
    ).toEqual(['body', 'graph', 'nodes', 0, 'config']);
  });
  it('duplicate ids, missing edge targets, second start nodes, cycles', async () => {
    expect(await locOf(setGraph([ok('a', 'b'), ok('b'), ok('b')]))).toEqual([
      'body',
      'graph',
      'nodes',
      2,
      'id',
    ]);
    expect(await locOf(setGraph([ok('a', 'nowhere')]))).toEqual(['body', 'graph', 'nodes', 0, 'next']);
    expect(await locOf(setGraph([ok('a', 'b'), ok('b'), ok('c')]))).toEqual([
      'body',
      'graph',
      'nodes',
      2,
      'id',
    ]);
    expect(await locOf(setGraph([ok('a', 'b'), ok('b', 'c'), ok('c', 'b')]))).toEqual([
      'body',
      'graph',
      'nodes',
      2,
      'next',
    ]);
    expect(await locOf(setGraph([ok('a', 'a')]))).toEqual(['body', 'graph', 'nodes', 0, 'next']);
  });
  it('condition edges, unknown template steps, missing trigger', async () => {
    expect(
      await locOf(
        setGraph([
          ok('a', 'c'),
          { id: 'c', type: 'condition', config: { left: 1, operator: 'eq', right: 1 }, on_true: 'zz' },
        ]),
      ),
    ).toEqual(['body', 'graph', 'nodes', 1, 'on_true']);
    expect(
      await locOf(setGraph([{ id: 'a', type: 'set', config: { values: { x: '{{steps.ghost.id}}' } } }])),
    ).toEqual(['body', 'graph', 'nodes', 0, 'config']);
    expect(await locOf({ nodes: [ok('a')] })).toEqual(['body', 'graph', 'trigger']);
  });
});

describe('roles', () => {
  it('developer may write; operations may read but not write', async () => {
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    const created = await api(ctx, dev).call('POST', '/workflows', { name: 'dev', graph: simpleGraph() });
    expect(created.statusCode).toBe(201);
    const id = created.json().definition_id;
    expect((await api(ctx, dev).call('POST', `/workflows/${id}/publish`)).statusCode).toBe(200);
    expect((await api(ctx, ops).call('GET', `/workflows/${id}`)).statusCode).toBe(200);
    expect((await api(ctx, ops).call('GET', '/workflow-runs')).statusCode).toBe(200);
    for (const [method, url] of [
      ['POST', '/workflows'],
      ['POST', `/workflows/${id}/runs`],
      ['POST', `/workflows/${id}/fork`],
    ] as const) {
      const res = await api(ctx, ops).call(method, url, { name: 'x', graph: simpleGraph(), input: {} });
      expect(res.statusCode, url).toBe(403);
      expect(res.json().detail).toBe(M.insufficientPermissions);
    }
  });

  it('a workflow may only use what its publisher or starter may do directly (developer: no payments)', async () => {
    const dev = api(ctx, await createTestClient(ctx, { role: 'developer', clientId: owner.clientId }));
    const graph = setGraph([
      {
        id: 'pay',
        type: 'transfer',
        config: { project_id: '{{input.p}}', user_id: '{{input.u}}', amount: '1.00', currency: 'EUR' },
      },
    ]);
    const draft = await dev.create({ name: 'pay', graph });
    const res = await dev.call('POST', `/workflows/${draft.definition_id}/publish`);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(WorkflowMessages.nodeNotPermitted('pay', 'transfer', 'payments.write'));
    const byOwner = await a.createPublished(graph);
    const run = await dev.call('POST', `/workflows/${byOwner.definition_id}/runs`, { input: {} });
    expect(run.statusCode).toBe(403);
    expect((await a.call('POST', `/workflows/${byOwner.definition_id}/runs`, { input: {} })).statusCode).toBe(
      201,
    );
  });
});
