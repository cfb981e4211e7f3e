/** A project's allowed_actions match what the API accepts, per state and per role. */
import { describe, expect, it } from 'vitest';
import { projectActions } from '../../src/modules/projects/projects.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestClient } from '../helpers/clients';
import { clientApp } from '../helpers/suites';
import { staffHeaders } from './fixtures';

const s = clientApp();

type Action = (typeof projectActions.names)[number];

const api = (method: string, url: string, caller = s.owner, payload?: object) =>
  s.ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers: caller.headers, payload });

async function active() {
  const r = await api('POST', '/projects', s.owner, { project_name: 'Shop' });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().project_id as string;
}
async function archived() {
  const id = await active();
  expect((await api('POST', `/projects/${id}/archive`)).statusCode).toBe(200);
  return id;
}

const perform = (action: Action, id: string) =>
  ({
    edit: () => api('PATCH', `/projects/${id}`, s.owner, { project_name: 'Renamed' }),
    archive: () => api('POST', `/projects/${id}/archive`),
    unarchive: () => api('POST', `/projects/${id}/unarchive`),
  })[action]();

const read = async (id: string) => (await api('GET', `/projects/${id}`)).json();

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  active: { expected: ['edit', 'archive'], make: active },
  archived: { expected: ['edit', 'unarchive'], make: archived },
};

describe('project allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ')}`, () =>
      expectActionsAgree({
        names: projectActions.names,
        expected,
        make,
        actionsOf: async (id) => (await read(id)).allowed_actions,
        perform,
        // Archive and unarchive are idempotent: the move not listed answers 200 and changes nothing.
        notRefused: {
          actions: ['archive', 'unarchive'],
          unchanged: async (id, before) => expect(await read(id)).toEqual(before),
        },
        snapshot: read,
      }));

  it('every answer carries them: create, update, archive', async () => {
    const created = await api('POST', '/projects', s.owner, { project_name: 'Shop' });
    expect(created.json().allowed_actions).toEqual(['edit', 'archive']);
    const id = created.json().project_id;
    expect((await perform('edit', id)).json().allowed_actions).toEqual(['edit', 'archive']);
    expect((await perform('archive', id)).json().allowed_actions).toEqual(['edit', 'unarchive']);
  });

  it('a role without projects.write sees none; the list carries them per row; staff freeze lists none', async () => {
    const id = await archived();
    const dev = await createTestClient(s.ctx, { role: 'developer', clientId: s.owner.clientId });
    expect((await api('GET', `/projects/${id}`, dev)).json().allowed_actions).toEqual([]);
    expect((await api('POST', `/projects/${id}/unarchive`, dev)).statusCode).toBe(403);
    const list = (await api('GET', '/projects?page_size=200&include_archived=true')).json().projects as {
      archived_at: string | null;
      allowed_actions: string[];
    }[];
    expect(list.length).toBeGreaterThan(1);
    for (const p of list)
      expect(p.allowed_actions).toEqual(p.archived_at ? ['edit', 'unarchive'] : ['edit', 'archive']);
    const frozen = await s.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/admin/projects/${id}/freeze`,
      headers: (await staffHeaders(s.ctx)).headers,
      payload: { reason: 'check' },
    });
    expect(frozen.statusCode, frozen.body).toBe(200);
    expect(frozen.json().allowed_actions).toEqual([]);
  });
});
