/** A contract flow's allowed_actions match what the API accepts, per state and per role. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowActions } from '../../src/modules/contracts/flows/flows.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { call, createTemplate } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let templateId: string;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  templateId = (await createTemplate(ctx, owner)).template_id;
});
afterAll(() => ctx?.close());

type Action = (typeof flowActions.names)[number];
const api = (method: string, url: string, body?: unknown, caller = owner) =>
  call(ctx, caller)(method, url, body);

async function flow(...steps: ('activate' | 'archive')[]) {
  const r = await api('POST', '/contracts/workflows', { name: 'Onboarding', template_ids: [templateId] });
  expect(r.statusCode, r.body).toBe(201);
  const id = r.json().flow_id as string;
  for (const s of steps) expect((await api('POST', `/contracts/workflows/${id}/${s}`)).statusCode).toBe(200);
  return id;
}

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  draft: { expected: ['edit', 'delete', 'activate', 'archive'], make: () => flow() },
  'draft, archived': { expected: ['edit', 'delete', 'unarchive'], make: () => flow('archive') },
  active: { expected: ['archive'], make: () => flow('activate') },
  'active, archived': { expected: ['unarchive'], make: () => flow('activate', 'archive') },
};

const perform = (action: Action, id: string) =>
  action === 'edit'
    ? api('PATCH', `/contracts/workflows/${id}`, { name: 'Renamed' })
    : action === 'delete'
      ? api('DELETE', `/contracts/workflows/${id}`)
      : api('POST', `/contracts/workflows/${id}/${action}`);

const read = async (id: string) => (await api('GET', `/contracts/workflows/${id}`)).json();

describe('contract flow allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ')}`, () =>
      expectActionsAgree({
        names: flowActions.names,
        expected,
        make,
        actionsOf: async (id) => (await read(id)).allowed_actions,
        perform,
        // Activating an active flow and (un)archiving twice answer 200 and change nothing.
        snapshot: read,
        notRefused: {
          actions: ['activate', 'archive', 'unarchive'],
          unchanged: async (id, before) => expect(await read(id)).toEqual(before),
        },
      }));

  it('a token without contracts.templates.write sees none; the list carries them per row', async () => {
    const id = await flow();
    const readOnly = await createTestClient(ctx, {
      clientId: owner.clientId,
      apiToken: true,
      permissions: ['contracts.read'],
    });
    expect(
      (await api('GET', `/contracts/workflows/${id}`, undefined, readOnly)).json().allowed_actions,
    ).toEqual([]);
    expect((await api('POST', `/contracts/workflows/${id}/activate`, undefined, readOnly)).statusCode).toBe(
      403,
    );
    await flow('activate');
    const list = (await api('GET', '/contracts/workflows?include_archived=true&page_size=100')).json()
      .flows as {
      status: 'draft' | 'active';
      archived_at: string | null;
      allowed_actions: string[];
    }[];
    expect(new Set(list.map((f) => f.status))).toEqual(new Set(['draft', 'active']));
    for (const f of list)
      expect(f.allowed_actions).toEqual(
        flowActions.of(f, { permissions: new Set(['contracts.templates.write']), sandbox: true }),
      );
  });
});
