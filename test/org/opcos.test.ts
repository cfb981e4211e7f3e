/** Opcos over HTTP: validation rules, drafts, submit, the sandbox approval simulator, scoping and roles. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDueOpcos } from '../../src/modules/opcos/opco-review.service';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { companyBody, eventsOf, PNG_1X1, soleTraderBody, staffHeaders } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let other: TestCaller;
const ACTIVATION_SECONDS = 5;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_SANDBOX_OPCO_ACTIVATION_SECONDS: String(ACTIVATION_SECONDS) } });
  owner = await createTestClient(ctx);
  other = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers, payload: payload as object });

async function createOpco(caller: TestCaller, body: Record<string, unknown> = companyBody()) {
  const res = await api('POST', '/opcos', caller.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('MCC catalogue', () => {
  it('serves the whole catalogue from 0742 to 9950', async () => {
    const res = await api('GET', '/opcos/mcc-codes', owner.headers);
    expect(res.statusCode).toBe(200);
    const codes = res.json().mcc_codes as { id: string; description: string }[];
    expect(codes.length).toBeGreaterThan(900);
    expect(codes[0]).toEqual({ id: '0742', description: 'Veterinary Services' });
    expect(codes.at(-1)!.id).toBe('9950');
    expect(codes.every((c) => /^\d{4}$/.test(c.id) && c.description.length > 0)).toBe(true);
    expect(new Set(codes.map((c) => c.id)).size).toBe(codes.length);
    expect(codes.find((c) => c.id === '5812')?.description).toMatch(/Restaurants/);
  });
});

describe('create', () => {
  it('creates a non-sole-trader opco in draft with defaults', async () => {
    const o = await createOpco(owner, companyBody({ settlement_iban: 'gb33 bukb 2020 1555 5555 55' }));
    expect(o).toMatchObject({
      status: 'draft',
      sub_tpp_id: null,
      status_reason: null,
      opco_type: 'licensed_tpp_non_sole_trader_private',
      primary_use_case: 'PIS: Funding an account',
      settlement_iban: 'GB33BUKB20201555555555',
      settlement_bic: 'DEUTDEFF',
      mcc: '5999',
      sole_trader: null,
      submitted_at: null,
    });
    expect(o.opco_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(o.ubos[0]).toMatchObject({ fullName: 'Ann Owner', ownershipPercentage: 60 });
  });

  it('creates a sole trader with a logo and an explicit use case', async () => {
    const o = await createOpco(
      owner,
      soleTraderBody({ logo: `data:image/png;base64,${PNG_1X1}`, primary_use_case: 'PIS: Paying a bill' }),
    );
    expect(o.sole_trader).toEqual({
      fullName: 'Jane Baker',
      address: '1 High St, London',
      dateOfBirth: '1985-04-12',
    });
    expect(o.primary_use_case).toBe('PIS: Paying a bill');
    expect(o.logo).toContain(PNG_1X1);
  });

  it('applies the opco_type rules with the spec messages', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [companyBody({ opco_type: null }), M.opcoTypeNull],
      [soleTraderBody({ sole_trader: undefined }), M.soleTraderRequired],
      [soleTraderBody({ sole_trader: null }), M.soleTraderRequired],
      [companyBody({ ubos: undefined }), M.ubosRequired],
      [companyBody({ directors: null }), M.ubosRequired],
      [companyBody({ signatories: [] }), M.ubosRequired],
    ];
    for (const [body, detail] of cases) {
      const res = await api('POST', '/opcos', owner.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ detail });
    }
  });

  it('validates fields with 422 and the field location', async () => {
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [companyBody({ opco_type: 'llc' }), ['body', 'opco_type']],
      [companyBody({ country_code: 'G' }), ['body', 'country_code']],
      [companyBody({ country_code: 'GBRXXX' }), ['body', 'country_code']],
      [companyBody({ settlement_iban: 'GB34BUKB20201555555555' }), ['body', 'settlement_iban']],
      [companyBody({ settlement_bic: 'ABCDZZ12' }), ['body', 'settlement_bic']],
      [companyBody({ mcc: '0001' }), ['body', 'mcc']],
      [companyBody({ mcc: '58121' }), ['body', 'mcc']],
      [companyBody({ primary_use_case: 'PIS: Anything' }), ['body', 'primary_use_case']],
      [companyBody({ logo: 'not base64!' }), ['body', 'logo']],
      [companyBody({ logo: Buffer.from('plain text, not an image').toString('base64') }), ['body', 'logo']],
      [companyBody({ logo: `data:image/jpeg;base64,${PNG_1X1}` }), ['body', 'logo']],
      [companyBody({ name: '' }), ['body', 'name']],
      [companyBody({ surprise: 1 }), ['body', 'surprise']],
      [
        soleTraderBody({ sole_trader: { fullName: 'x', address: 'y', dateOfBirth: '12/04/1985' } }),
        ['body', 'sole_trader'],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await api('POST', '/opcos', owner.headers, body);
      expect(res.statusCode, JSON.stringify(loc)).toBe(422);
      const locs = (res.json().detail as { loc: (string | number)[] }[]).map((d) => d.loc.slice(0, 2));
      expect(locs).toContainEqual(loc);
    }
    // A nullable list with a bad item: the item's own issue, not the null branch's "valid null".
    const badPerson = await api(
      'POST',
      '/opcos',
      owner.headers,
      companyBody({ ubos: [{ address: 'London' }] }),
    );
    expect(badPerson.statusCode).toBe(422);
    expect(badPerson.json().detail).toEqual([
      { loc: ['body', 'ubos', 0, 'fullName'], msg: 'Field required', type: 'missing' },
    ]);
    const missing = await api(
      'POST',
      '/opcos',
      owner.headers,
      companyBody({ opco_type: undefined, mcc: undefined }),
    );
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail.map((d: { loc: string[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'opco_type'],
        ['body', 'mcc'],
      ]),
    );
  });

  it('accepts country codes of 2 to 5 characters', async () => {
    expect(
      (await api('POST', '/opcos', owner.headers, companyBody({ country_code: 'GB-EN' }))).statusCode,
    ).toBe(201);
  });
});

describe('read, list, edit, delete', () => {
  it('lists newest first with page and page_size, filters by status', async () => {
    const c = await createTestClient(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ctx.clock.advanceSeconds(1);
      ids.push((await createOpco(c, companyBody({ name: `Opco ${i}` }))).opco_id);
    }
    const page1 = (await api('GET', '/opcos?page=1&page_size=2', c.headers)).json();
    expect(page1.opcos.map((o: { opco_id: string }) => o.opco_id)).toEqual([ids[2], ids[1]]);
    expect(page1.pagination).toEqual({ total: 3, page: 1, page_size: 2, total_pages: 2 });
    const page2 = (await api('GET', '/opcos?page=2&page_size=2', c.headers)).json();
    expect(page2.opcos.map((o: { opco_id: string }) => o.opco_id)).toEqual([ids[0]]);
    const def = (await api('GET', '/opcos', c.headers)).json();
    expect(def.pagination.page_size).toBe(20);
    expect((await api('GET', '/opcos?page_size=201', c.headers)).statusCode).toBe(422);
    expect((await api('GET', '/opcos?page=0', c.headers)).statusCode).toBe(422);
    await api('POST', `/opcos/${ids[0]}/submit`, c.headers);
    const drafts = (await api('GET', '/opcos?status=draft', c.headers)).json();
    expect(drafts.pagination.total).toBe(2);
    const empty = (await api('GET', '/opcos', (await createTestClient(ctx)).headers)).json();
    expect(empty).toEqual({ opcos: [], pagination: { total: 0, page: 1, page_size: 20, total_pages: 0 } });
  });

  it('reads one opco; unknown and malformed ids', async () => {
    const o = await createOpco(owner);
    const res = await api('GET', `/opcos/${o.opco_id}`, owner.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(o);
    const unknown = await api('GET', '/opcos/00000000-0000-4000-8000-000000000000', owner.headers);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: M.opcoNotFound });
    const bad = await api('GET', '/opcos/not-a-uuid', owner.headers);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['path', 'opco_id']);
  });

  it('edits a draft, re-checking the type rules on the result', async () => {
    const o = await createOpco(owner);
    const res = await api('PATCH', `/opcos/${o.opco_id}`, owner.headers, {
      name: 'Renamed',
      mcc: '0742',
      settlement_bic: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', mcc: '0742', settlement_bic: null, status: 'draft' });
    const toSole = await api('PATCH', `/opcos/${o.opco_id}`, owner.headers, {
      opco_type: 'licensed_tpp_sole_trader',
    });
    expect(toSole.statusCode).toBe(400);
    expect(toSole.json()).toEqual({ detail: M.soleTraderRequired });
    const dropUbos = await api('PATCH', `/opcos/${o.opco_id}`, owner.headers, { ubos: null });
    expect(dropUbos.json()).toEqual({ detail: M.ubosRequired });
    const nullType = await api('PATCH', `/opcos/${o.opco_id}`, owner.headers, { opco_type: null });
    expect(nullType.json()).toEqual({ detail: M.opcoTypeNull });
    const badIban = await api('PATCH', `/opcos/${o.opco_id}`, owner.headers, { settlement_iban: 'DE00' });
    expect(badIban.statusCode).toBe(422);
  });

  it('refuses to edit or delete a submitted opco', async () => {
    const o = await createOpco(owner);
    expect((await api('POST', `/opcos/${o.opco_id}/submit`, owner.headers)).statusCode).toBe(200);
    const edit = await api('PATCH', `/opcos/${o.opco_id}`, owner.headers, { name: 'Late' });
    expect(edit.statusCode).toBe(400);
    expect(edit.json()).toEqual({ detail: M.opcoNotEditable });
    const del = await api('DELETE', `/opcos/${o.opco_id}`, owner.headers);
    expect(del.statusCode).toBe(400);
    expect(del.json().detail).toBe('Only an opco in draft status can be deleted');
  });

  it('deletes a draft (204, then 404); a draft bound to a project is 409', async () => {
    const o = await createOpco(owner);
    const del = await api('DELETE', `/opcos/${o.opco_id}`, owner.headers);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await api('GET', `/opcos/${o.opco_id}`, owner.headers)).statusCode).toBe(404);
    expect((await api('DELETE', `/opcos/${o.opco_id}`, owner.headers)).statusCode).toBe(404);

    const bound = await createOpco(owner);
    await api('POST', '/projects', owner.headers, { project_name: 'P', opco_id: bound.opco_id });
    const refused = await api('DELETE', `/opcos/${bound.opco_id}`, owner.headers);
    expect(refused.statusCode).toBe(409);
  });
});

describe('submit and the sandbox approval simulator', () => {
  it('submit moves a draft to awaiting_approval and emits opco.status_changed', async () => {
    const c = await createTestClient(ctx);
    const o = await createOpco(c);
    const res = await api('POST', `/opcos/${o.opco_id}/submit`, c.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'awaiting_approval', sub_tpp_id: null });
    expect(res.json().submitted_at).toBe(ctx.clock.now().toISOString());
    const again = await api('POST', `/opcos/${o.opco_id}/submit`, c.headers);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ detail: M.opcoAlreadyInStatus('awaiting_approval') });
    expect(again.json().detail).toBe("Opco is already in 'awaiting_approval' status");
    const evs = await eventsOf(ctx, c.clientId, 'opco.status_changed');
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toEqual({
      opco_id: o.opco_id,
      sub_tpp_id: null,
      name: o.name,
      previous_opco_status: 'draft',
      current_opco_status: 'awaiting_approval',
      opco_status_reason: null,
    });
  });

  it('activates after SVC_SANDBOX_OPCO_ACTIVATION_SECONDS, assigning a sub_tpp_id', async () => {
    const c = await createTestClient(ctx);
    await activateDueOpcos(ctx.deps); // drain anything other tests left due
    const o = await createOpco(c);
    expect(o.activation_due_at).toBeNull();
    const submitted = (await api('POST', `/opcos/${o.opco_id}/submit`, c.headers)).json();
    // the sandbox's countdown: when the approval simulator activates it
    expect(submitted.activation_due_at).toBe(
      new Date(ctx.clock.now().getTime() + ACTIVATION_SECONDS * 1000).toISOString(),
    );
    ctx.clock.advanceSeconds(ACTIVATION_SECONDS - 1);
    await activateDueOpcos(ctx.deps);
    expect((await api('GET', `/opcos/${o.opco_id}`, c.headers)).json().status).toBe('awaiting_approval');
    ctx.clock.advanceSeconds(1);
    expect(await activateDueOpcos(ctx.deps)).toBeGreaterThanOrEqual(1);
    const after = (await api('GET', `/opcos/${o.opco_id}`, c.headers)).json();
    expect(after.status).toBe('activated');
    expect(after.sub_tpp_id).toMatch(/^stpp_[0-9a-f]{24}$/);
    expect(after.activated_at).toBe(ctx.clock.now().toISOString());
    expect(after.activation_due_at).toBeNull();
    const evs = await eventsOf(ctx, c.clientId, 'opco.status_changed');
    expect(evs.map((e) => [e.data.previous_opco_status, e.data.current_opco_status])).toEqual([
      ['draft', 'awaiting_approval'],
      ['awaiting_approval', 'activated'],
    ]);
    expect(evs[1]!.data.sub_tpp_id).toBe(after.sub_tpp_id);
    // Nothing more to do; a second pass changes nothing.
    await activateDueOpcos(ctx.deps);
    expect(await eventsOf(ctx, c.clientId, 'opco.status_changed')).toHaveLength(2);
    const resubmit = await api('POST', `/opcos/${o.opco_id}/submit`, c.headers);
    expect(resubmit.json()).toEqual({ detail: M.opcoAlreadyInStatus('activated') });
  });

  it('two workers racing activate each opco exactly once', async () => {
    const c = await createTestClient(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await createOpco(c);
      await api('POST', `/opcos/${o.opco_id}/submit`, c.headers);
      ids.push(o.opco_id);
    }
    ctx.clock.advanceSeconds(ACTIVATION_SECONDS);
    const run = () => activateDueOpcos(ctx.deps);
    await Promise.all([run(), run(), run(), run()]);
    const evs = await eventsOf(ctx, c.clientId, 'opco.status_changed');
    for (const id of ids) {
      expect(evs.filter((e) => e.data.opco_id === id).map((e) => e.data.current_opco_status)).toEqual([
        'awaiting_approval',
        'activated',
      ]);
    }
  });

  it('the simulated network rejects registration numbers starting with REJECT', async () => {
    const c = await createTestClient(ctx);
    const o = await createOpco(c, companyBody({ registration_number: 'REJECT-42' }));
    await api('POST', `/opcos/${o.opco_id}/submit`, c.headers);
    ctx.clock.advanceSeconds(ACTIVATION_SECONDS);
    await activateDueOpcos(ctx.deps);
    const after = (await api('GET', `/opcos/${o.opco_id}`, c.headers)).json();
    expect(after).toMatchObject({ status: 'rejected', sub_tpp_id: null });
    expect(after.status_reason).toMatch(/could not be verified/);
    const evs = await eventsOf(ctx, c.clientId, 'opco.status_changed');
    expect(evs.at(-1)!.data).toMatchObject({
      current_opco_status: 'rejected',
      opco_status_reason: after.status_reason,
    });
  });

  it('a staff decision taken first wins over the simulator', async () => {
    const c = await createTestClient(ctx);
    const staff = await staffHeaders(ctx);
    const o = await createOpco(c);
    await api('POST', `/opcos/${o.opco_id}/submit`, c.headers);
    const rej = await api('POST', `/admin/opcos/${o.opco_id}/reject`, staff.headers, {
      reason: 'Docs missing',
    });
    expect(rej.statusCode).toBe(200);
    ctx.clock.advanceSeconds(ACTIVATION_SECONDS);
    await activateDueOpcos(ctx.deps);
    expect((await api('GET', `/opcos/${o.opco_id}`, c.headers)).json()).toMatchObject({
      status: 'rejected',
      status_reason: 'Docs missing',
    });
  });
});

describe('scoping, authentication and roles', () => {
  it("another client's opco is 404 on every route", async () => {
    const o = await createOpco(owner);
    for (const [method, url, body] of [
      ['GET', `/opcos/${o.opco_id}`, undefined],
      ['PATCH', `/opcos/${o.opco_id}`, { name: 'Mine now' }],
      ['DELETE', `/opcos/${o.opco_id}`, undefined],
      ['POST', `/opcos/${o.opco_id}/submit`, undefined],
    ] as const) {
      const res = await api(method, url, other.headers, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ detail: M.opcoNotFound });
    }
    const list = (await api('GET', '/opcos', other.headers)).json();
    expect(list.opcos.find((x: { opco_id: string }) => x.opco_id === o.opco_id)).toBeUndefined();
    expect((await api('GET', `/opcos/${o.opco_id}`, owner.headers)).json().status).toBe('draft');
  });

  it('developers read but cannot write; operations can write', async () => {
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    const o = await createOpco(ops);
    expect((await api('GET', `/opcos/${o.opco_id}`, dev.headers)).statusCode).toBe(200);
    expect((await api('GET', '/opcos/mcc-codes', dev.headers)).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/opcos', companyBody()],
      ['PATCH', `/opcos/${o.opco_id}`, { name: 'x' }],
      ['DELETE', `/opcos/${o.opco_id}`, undefined],
      ['POST', `/opcos/${o.opco_id}/submit`, undefined],
    ] as const) {
      const res = await api(method, url, dev.headers, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({
        detail: M.insufficientPermissions,
        required_permission: expect.any(String),
      });
    }
  });

  it('no token and a staff token are 401', async () => {
    const none = await api('GET', '/opcos', {});
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const staff = await staffHeaders(ctx);
    expect((await api('GET', '/opcos', staff.headers)).statusCode).toBe(401);
  });
});
