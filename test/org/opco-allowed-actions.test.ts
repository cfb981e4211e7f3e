/** An opco's allowed_actions match what the API accepts, per state and per role. */
import { describe, expect, it } from 'vitest';
import type { OpcoStatus } from '../../src/db/schema/index';
import { opcoActions } from '../../src/modules/opcos/opcos.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestClient } from '../helpers/clients';
import { clientApp } from '../helpers/suites';
import { insertOpco } from '../payments/fixtures';
import { companyBody } from './fixtures';

const s = clientApp();

type Action = (typeof opcoActions.names)[number];

const api = (method: string, url: string, caller = s.owner, payload?: object) =>
  s.ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers: caller.headers, payload });

async function draft() {
  const r = await api('POST', '/opcos', s.owner, companyBody());
  expect(r.statusCode, r.body).toBe(201);
  return r.json().opco_id as string;
}
const inStatus = (status: OpcoStatus) => () => insertOpco(s.ctx, s.owner.clientId, { status });

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  draft: { expected: ['edit', 'submit', 'delete', 'add_project'], make: draft },
  'submitted (sandbox)': {
    expected: ['add_project'],
    make: async () => {
      const id = await draft();
      expect((await api('POST', `/opcos/${id}/submit`)).statusCode).toBe(200);
      return id;
    },
  },
  pending_superadmin_review: { expected: ['add_project'], make: inStatus('pending_superadmin_review') },
  activated: { expected: ['add_project'], make: inStatus('activated') },
  rejected: { expected: [], make: inStatus('rejected') },
  deactivated: { expected: [], make: inStatus('deactivated') },
};

const perform = (action: Action, id: string) =>
  ({
    edit: () => api('PATCH', `/opcos/${id}`, s.owner, { name: 'Renamed' }),
    submit: () => api('POST', `/opcos/${id}/submit`),
    delete: () => api('DELETE', `/opcos/${id}`),
    add_project: () => api('POST', '/projects', s.owner, { project_name: 'Under it', opco_id: id }),
  })[action]();

describe('opco allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: opcoActions.names,
        expected,
        make,
        actionsOf: async (id) => (await api('GET', `/opcos/${id}`)).json().allowed_actions,
        perform,
      }));

  it('a role without opcos.write and projects.write sees none; the list carries them per row', async () => {
    const id = await draft();
    const dev = await createTestClient(s.ctx, { role: 'developer', clientId: s.owner.clientId });
    const asDev = await api('GET', `/opcos/${id}`, dev);
    expect(asDev.json().allowed_actions).toEqual([]);
    expect((await api('PATCH', `/opcos/${id}`, dev, { name: 'x' })).statusCode).toBe(403);
    expect((await api('POST', '/projects', dev, { project_name: 'x', opco_id: id })).statusCode).toBe(403);
    const list = (await api('GET', '/opcos?page_size=100')).json().opcos as {
      opco_id: string;
      status: string;
      allowed_actions: string[];
    }[];
    const expected = (status: string) =>
      status === 'draft'
        ? ['edit', 'submit', 'delete', 'add_project']
        : status === 'rejected' || status === 'deactivated'
          ? []
          : ['add_project'];
    for (const o of list) expect(o.allowed_actions).toEqual(expected(o.status));
  });
});
