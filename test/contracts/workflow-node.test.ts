/**
 * The workflow `contract` node: publishable, sends with key workflow:<run>:<step> (idempotent), the
 * run waits until the request is terminal, across a restart of the service (a second app over the
 * same database), and fails with the spec's message when the request ends otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { createTestDatabase } from '../helpers/db';
import { api, drain, setGraph } from '../workflows/fixtures';
import { byRole, call, createTemplate, getReq, simulate } from './fixtures';

let database: Database;
let ctx: TestContext;
let owner: TestCaller;
let templateId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  ctx = await createTestApp({ database });
  owner = await createTestClient(ctx);
  templateId = (await createTemplate(ctx, owner)).template_id;
});
afterAll(async () => {
  await ctx?.close();
  await database?.close();
});

const graph = (tid: string) =>
  setGraph([
    {
      id: 'sign',
      type: 'contract',
      config: {
        template_id: tid,
        title: 'Agreement for {{input.name}}',
        participants: [
          { role: 'client', name: '{{input.name}}', email: '{{input.email}}' },
          { role: 'company', name: 'Cory Company', email: 'cory-wf@example.com' },
        ],
      },
      next: 'after',
    },
    { id: 'after', type: 'set', config: { values: { id: '{{steps.sign.contract_request_id}}' } } },
  ]);

describe('workflow contract node', () => {
  it('waits for completion across a restart, idempotent per run and step', async () => {
    const a = api(ctx, owner);
    const wf = await a.createPublished(graph(templateId));
    const run = await a.start(wf.definition_id, { name: 'Wanda', email: 'wanda@example.com' });
    await drain(ctx);
    let got = await a.run(run.run_id);
    expect(got.status, JSON.stringify(got)).toBe('waiting');
    const list = await call(ctx, owner)('GET', '/contracts/requests?q=Wanda');
    expect(list.json().contract_requests).toHaveLength(1);
    const req = list.json().contract_requests[0];
    expect(req.title).toBe('Agreement for Wanda');
    await drain(ctx);
    expect(
      (await call(ctx, owner)('GET', '/contracts/requests?q=Wanda')).json().contract_requests,
    ).toHaveLength(1);

    // Restart: a new service over the same database finishes the run.
    const secrets = ctx.deps.secrets;
    await ctx.close();
    ctx = await createTestApp({ database, secrets });
    await simulate(ctx, owner, req.contract_request_id, 'sign', byRole(req, 'client').participant_id);
    await simulate(ctx, owner, req.contract_request_id, 'sign', byRole(req, 'company').participant_id);
    expect((await getReq(ctx, owner, req.contract_request_id)).status).toBe('completed');
    await drain(ctx);
    got = await api(ctx, owner).run(run.run_id);
    expect(got.status).toBe('completed');
    const out =
      got.steps?.find((s: { step_id: string }) => s.step_id === 'sign')?.output ?? got.step_outputs?.sign;
    expect(out.contract_request_id).toBe(req.contract_request_id);
    expect(out.status).toBe('completed');
    expect(Object.keys(out.signing_urls).sort()).toEqual(['client', 'company']);
  });

  it('a declined request fails the step with the spec message', async () => {
    const a = api(ctx, owner);
    const wf = await a.createPublished(graph(templateId), 'decline');
    const run = await a.start(wf.definition_id, { name: 'Dora', email: 'dora@example.com' });
    await drain(ctx);
    const req = (await call(ctx, owner)('GET', '/contracts/requests?q=Dora')).json().contract_requests[0];
    await simulate(ctx, owner, req.contract_request_id, 'decline', byRole(req, 'client').participant_id);
    await drain(ctx);
    const got = await a.run(run.run_id);
    expect(got.status).toBe('failed');
    expect(got.error_message).toBe("Step 'sign' (contract) failed: contract request declined");
  });
});
