/** Projects over HTTP: create/read/update/list, opco binding rules, archive, staff freeze, scoping and roles. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { companyBody, eventsOf, staffHeaders } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let other: TestCaller;
let staff: Record<string, string>;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_SANDBOX_OPCO_ACTIVATION_SECONDS: '0' } });
  owner = await createTestClient(ctx);
  other = await createTestClient(ctx);
  staff = (await staffHeaders(ctx)).headers;
});
afterAll(() => ctx.close());

const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers, payload: payload as object });

async function newOpco(caller: TestCaller): Promise<string> {
  const res = await api('POST', '/opcos', caller.headers, companyBody());
  expect(res.statusCode).toBe(201);
  return res.json().opco_id;
}

async function newProject(caller: TestCaller, body: Record<string, unknown> = { project_name: 'Shop' }) {
  const res = await api('POST', '/projects', caller.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('create, read, update', () => {
  it('creates a project without an opco', async () => {
    const p = await newProject(owner, { project_name: 'Web shop' });
    expect(p).toEqual({
      project_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project_name: 'Web shop',
      opco_id: null,
      is_frozen: false,
      archived_at: null,
      created_at: ctx.clock.now().toISOString(),
      allowed_actions: ['edit', 'archive'],
    });
    expect((await api('GET', `/projects/${p.project_id}`, owner.headers)).json()).toEqual(p);
  });

  it('binds to an own opco in any status except rejected and deactivated', async () => {
    const draft = await newOpco(owner);
    expect((await newProject(owner, { project_name: 'A', opco_id: draft })).opco_id).toBe(draft);

    const rejected = await newOpco(owner);
    await api('POST', `/opcos/${rejected}/submit`, owner.headers);
    await api('POST', `/admin/opcos/${rejected}/reject`, staff);
    const r1 = await api('POST', '/projects', owner.headers, { project_name: 'B', opco_id: rejected });
    expect(r1.statusCode).toBe(400);
    expect(r1.json()).toEqual({ detail: M.opcoNotBindable });

    const deactivated = await newOpco(owner);
    await api('POST', `/opcos/${deactivated}/submit`, owner.headers);
    await api('POST', `/admin/opcos/${deactivated}/approve`, staff);
    const d = await api('POST', `/admin/opcos/${deactivated}/deactivate`, staff);
    expect(d.json().status).toBe('deactivated');
    const r2 = await api('POST', '/projects', owner.headers, { project_name: 'C', opco_id: deactivated });
    expect(r2.json()).toEqual({ detail: M.opcoNotBindable });
    const p = await newProject(owner);
    const r3 = await api('PATCH', `/projects/${p.project_id}`, owner.headers, { opco_id: deactivated });
    expect(r3.statusCode).toBe(400);
    expect(r3.json()).toEqual({ detail: M.opcoNotBindable });
  });

  it("another client's opco is 400, an unknown opco 404", async () => {
    const foreign = await newOpco(other);
    const res = await api('POST', '/projects', owner.headers, { project_name: 'X', opco_id: foreign });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: M.opcoOtherClient });
    const p = await newProject(owner);
    const patch = await api('PATCH', `/projects/${p.project_id}`, owner.headers, { opco_id: foreign });
    expect(patch.json()).toEqual({ detail: M.opcoOtherClient });
    const unknown = await api('POST', '/projects', owner.headers, {
      project_name: 'X',
      opco_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: M.opcoNotFound });
  });

  it('renames, binds and unbinds', async () => {
    const p = await newProject(owner);
    const opco = await newOpco(owner);
    const bound = await api('PATCH', `/projects/${p.project_id}`, owner.headers, {
      project_name: 'Renamed',
      opco_id: opco,
    });
    expect(bound.json()).toMatchObject({ project_name: 'Renamed', opco_id: opco });
    const unbound = await api('PATCH', `/projects/${p.project_id}`, owner.headers, { opco_id: null });
    expect(unbound.json()).toMatchObject({ project_name: 'Renamed', opco_id: null });
  });

  it('validates bodies and ids (422)', async () => {
    expect((await api('POST', '/projects', owner.headers, {})).statusCode).toBe(422);
    expect((await api('POST', '/projects', owner.headers, { project_name: '' })).statusCode).toBe(422);
    expect(
      (await api('POST', '/projects', owner.headers, { project_name: 'x', opco_id: 'nope' })).statusCode,
    ).toBe(422);
    const p = await newProject(owner);
    const frozen = await api('PATCH', `/projects/${p.project_id}`, owner.headers, { is_frozen: true });
    expect(frozen.statusCode).toBe(422);
    expect(frozen.json().detail[0].loc).toEqual(['body', 'is_frozen']);
    expect((await api('GET', '/projects/123', owner.headers)).json().detail[0].loc).toEqual([
      'path',
      'project_id',
    ]);
  });
});

describe('list and archive', () => {
  it('hides archived projects unless include_archived=true; archive is idempotent', async () => {
    const c = await createTestClient(ctx);
    const a = await newProject(c, { project_name: 'A' });
    ctx.clock.advanceSeconds(1);
    const b = await newProject(c, { project_name: 'B' });
    const arch = await api('POST', `/projects/${a.project_id}/archive`, c.headers);
    expect(arch.statusCode).toBe(200);
    expect(arch.json().archived_at).toBe(ctx.clock.now().toISOString());
    ctx.clock.advanceSeconds(5);
    const again = await api('POST', `/projects/${a.project_id}/archive`, c.headers);
    expect(again.json().archived_at).toBe(arch.json().archived_at);

    const def = (await api('GET', '/projects', c.headers)).json();
    expect(def.projects.map((p: { project_id: string }) => p.project_id)).toEqual([b.project_id]);
    expect(def.pagination).toEqual({ total: 1, page: 1, page_size: 20, total_pages: 1 });
    const all = (await api('GET', '/projects?include_archived=true', c.headers)).json();
    expect(all.projects.map((p: { project_id: string }) => p.project_id)).toEqual([
      b.project_id,
      a.project_id,
    ]);
    expect((await api('GET', `/projects/${a.project_id}`, c.headers)).statusCode).toBe(200);

    const un = await api('POST', `/projects/${a.project_id}/unarchive`, c.headers);
    expect(un.json().archived_at).toBeNull();
    expect((await api('GET', '/projects', c.headers)).json().pagination.total).toBe(2);
    const paged = (await api('GET', '/projects?page=2&page_size=1', c.headers)).json();
    expect(paged.projects.map((p: { project_id: string }) => p.project_id)).toEqual([a.project_id]);
    expect(paged.pagination).toEqual({ total: 2, page: 2, page_size: 1, total_pages: 2 });
    expect((await api('GET', '/projects?page_size=201', c.headers)).statusCode).toBe(422);
  });
});

describe('staff freeze', () => {
  it('freezes and unfreezes with project.frozen_changed, no event when unchanged', async () => {
    const c = await createTestClient(ctx);
    const p = await newProject(c, { project_name: 'Frozen shop' });
    const f = await api('POST', `/admin/projects/${p.project_id}/freeze`, staff, { reason: 'Chargebacks' });
    expect(f.statusCode).toBe(200);
    expect(f.json()).toMatchObject({ project_id: p.project_id, is_frozen: true });
    expect((await api('GET', `/projects/${p.project_id}`, c.headers)).json().is_frozen).toBe(true);
    // Freezing again changes nothing and emits nothing.
    expect((await api('POST', `/admin/projects/${p.project_id}/freeze`, staff)).json().is_frozen).toBe(true);
    const u = await api('POST', `/admin/projects/${p.project_id}/unfreeze`, staff);
    expect(u.json().is_frozen).toBe(false);
    const evs = await eventsOf(ctx, c.clientId, 'project.frozen_changed');
    expect(evs.map((e) => e.data)).toEqual([
      {
        project_id: p.project_id,
        project_name: 'Frozen shop',
        previous_is_frozen: false,
        current_is_frozen: true,
        source: 'admin',
        actor_type: 'service_internal',
        actor_id: null,
      },
      {
        project_id: p.project_id,
        project_name: 'Frozen shop',
        previous_is_frozen: true,
        current_is_frozen: false,
        source: 'admin',
        actor_type: 'service_internal',
        actor_id: null,
      },
    ]);
    const unknown = await api('POST', '/admin/projects/00000000-0000-4000-8000-000000000000/freeze', staff);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: M.projectNotFound });
  });

  it('clients cannot use the freeze endpoints', async () => {
    const p = await newProject(owner);
    expect((await api('POST', `/admin/projects/${p.project_id}/freeze`, owner.headers)).statusCode).toBe(401);
  });
});

describe('scoping and roles', () => {
  it("another client's project is 404 on every route", async () => {
    const p = await newProject(owner);
    for (const [method, url, body] of [
      ['GET', `/projects/${p.project_id}`, undefined],
      ['PATCH', `/projects/${p.project_id}`, { project_name: 'Mine' }],
      ['POST', `/projects/${p.project_id}/archive`, undefined],
      ['POST', `/projects/${p.project_id}/unarchive`, undefined],
    ] as const) {
      const res = await api(method, url, other.headers, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ detail: M.projectNotFound });
    }
    const list = (await api('GET', '/projects?include_archived=true', other.headers)).json();
    expect(list.projects.some((x: { project_id: string }) => x.project_id === p.project_id)).toBe(false);
  });

  it('developers read but cannot write', async () => {
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    const p = await newProject(owner);
    expect((await api('GET', '/projects', dev.headers)).statusCode).toBe(200);
    expect((await api('GET', `/projects/${p.project_id}`, dev.headers)).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/projects', { project_name: 'x' }],
      ['PATCH', `/projects/${p.project_id}`, { project_name: 'x' }],
      ['POST', `/projects/${p.project_id}/archive`, undefined],
      ['POST', `/projects/${p.project_id}/unarchive`, undefined],
    ] as const) {
      const res = await api(method, url, dev.headers, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({
        detail: M.insufficientPermissions,
        required_permission: expect.any(String),
      });
    }
    expect((await api('GET', '/projects', {})).statusCode).toBe(401);
  });
});
