/** The staff admin API: login and lockout, token separation, client switches, visibility groups, settings, bootstrap. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaff } from '../../src/modules/admin/staff.service';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import { M } from '../../src/shared/messages';
import { runStartupTasks } from '../../src/startup';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { staffHeaders } from '../org/fixtures';

let ctx: TestContext;
let client: TestCaller;
let staff: Record<string, string>;

beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      SVC_BOOTSTRAP_STAFF_EMAIL: 'root@ops.example.com',
      SVC_BOOTSTRAP_STAFF_PASSWORD: 'bootstrap-pass-123',
    },
  });
  client = await createTestClient(ctx);
  staff = (await staffHeaders(ctx)).headers;
});
afterAll(() => ctx.close());

const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers, payload: payload as object });
const login = (email: string, password: string) => api('POST', '/admin/auth/login', {}, { email, password });

describe('staff login', () => {
  it('bootstrap staff from the environment, created once (idempotent start task)', async () => {
    await runStartupTasks(ctx.deps);
    await runStartupTasks(ctx.deps);
    const res = await login('ROOT@ops.example.com', 'bootstrap-pass-123');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 1800 });
    const again = await createStaff(ctx.deps, {
      email: 'root@ops.example.com',
      password: 'another-password',
    });
    expect(again.created).toBe(false);
    expect((await login('root@ops.example.com', 'bootstrap-pass-123')).statusCode).toBe(200);
  });

  it('wrong password and unknown email are 401 with the same message', async () => {
    await createStaff(ctx.deps, { email: 'wrong@ops.example.com', password: 'right-password' });
    for (const [email, pw] of [
      ['wrong@ops.example.com', 'nope-nope'],
      ['nobody@ops.example.com', 'whatever1'],
    ]) {
      const res = await login(email!, pw!);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ detail: M.incorrectLogin });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expect((await api('POST', '/admin/auth/login', {}, { email: 'x@y.z' })).statusCode).toBe(422);
  });

  it('5 failures lock the email for 5 minutes (429 with Retry-After), stored in the database', async () => {
    const email = 'locked@ops.example.com';
    await createStaff(ctx.deps, { email, password: 'right-password' });
    for (let i = 0; i < 5; i++) expect((await login(email, `bad-${i}-pass`)).statusCode).toBe(401);
    const locked = await login(email, 'right-password');
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toEqual({ detail: M.tooManyAttempts(300) });
    expect(locked.headers['retry-after']).toBe('300');
    expect(locked.headers['x-ratelimit-limit']).toBe('5');
    expect(locked.headers['x-ratelimit-remaining']).toBe('0');
    ctx.clock.advanceSeconds(120);
    const later = await login(email, 'right-password');
    expect(later.json()).toEqual({ detail: M.tooManyAttempts(180) });
    // A second app over the same database (another node) sees the same lock.
    const node2 = await createTestApp({ database: ctx.deps.database });
    node2.clock.set(ctx.clock.now());
    const other = await node2.app.inject({
      method: 'POST',
      url: '/api/v1/admin/auth/login',
      payload: { email, password: 'right-password' },
    });
    expect(other.statusCode).toBe(429);
    await node2.close();
    ctx.clock.advanceSeconds(180);
    expect((await login(email, 'right-password')).statusCode).toBe(200);
  });

  it('failures spread beyond the 15-minute window do not lock', async () => {
    const email = 'slow@ops.example.com';
    await createStaff(ctx.deps, { email, password: 'right-password' });
    for (let i = 0; i < 4; i++) await login(email, 'bad-password');
    ctx.clock.advanceSeconds(16 * 60);
    for (let i = 0; i < 4; i++) expect((await login(email, 'bad-password')).statusCode).toBe(401);
    expect((await login(email, 'right-password')).statusCode).toBe(200);
  });
});

describe('token separation', () => {
  it('client tokens are 401 on admin routes; staff tokens 401 on client routes', async () => {
    const res = await api('GET', '/admin/clients', client.headers);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ detail: M.couldNotValidate });
    expect((await api('GET', '/admin/clients', {})).statusCode).toBe(401);
    expect((await api('GET', '/projects', staff)).statusCode).toBe(401);
    expect((await api('GET', '/kyc/lists', staff)).statusCode).toBe(401);
  });

  it('expired staff tokens and tokens of a deleted staff id are 401', async () => {
    ctx.clock.advanceSeconds(1801);
    expect((await api('GET', '/admin/clients', staff)).statusCode).toBe(401);
    staff = (await staffHeaders(ctx)).headers;
    const ghost = await signToken(
      ctx.deps.secrets.jwtKey,
      {
        sub: '00000000-0000-4000-8000-000000000000',
        type: 'staff_access',
        actor_type: 'service_internal',
        environment: 'sandbox',
      },
      600,
      ctx.clock.now(),
    );
    expect((await api('GET', '/admin/clients', { authorization: `Bearer ${ghost.token}` })).statusCode).toBe(
      401,
    );
  });
});

describe('clients', () => {
  it('lists clients with q and pagination', async () => {
    const res = await api('GET', '/admin/clients?page_size=200', staff);
    expect(res.statusCode).toBe(200);
    expect(res.json().clients.some((c: { client_id: string }) => c.client_id === client.clientId)).toBe(true);
    const one = (await api('GET', `/admin/clients?q=${client.clientId}`, staff)).json();
    expect(one.clients.map((c: { client_id: string }) => c.client_id)).toEqual([client.clientId]);
    const company = one.clients[0].company_name as string;
    const byName = (
      await api('GET', `/admin/clients?q=${encodeURIComponent(company.toUpperCase())}`, staff)
    ).json();
    expect(byName.pagination.total).toBe(1);
    expect((await api('GET', '/admin/clients?page_size=201', staff)).statusCode).toBe(422);
  });

  it('switches production access, link generation and the active flag', async () => {
    const client = await createTestClient(ctx);
    const res = await api('PATCH', `/admin/clients/${client.clientId}`, staff, {
      production_access_enabled: true,
      payment_links_enabled: false,
      kyc_links_enabled: false,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      client_id: client.clientId,
      production_access_enabled: true,
      payment_links_enabled: false,
      kyc_links_enabled: false,
      is_active: true,
    });
    expect((await api('GET', `/admin/clients/${client.clientId}`, staff)).json().payment_links_enabled).toBe(
      false,
    );
    const off = await api('PATCH', `/admin/clients/${client.clientId}`, staff, { is_active: false });
    expect(off.json().is_active).toBe(false);
    const blocked = await api('GET', '/projects', client.headers);
    expect(blocked.statusCode).toBe(401);
    expect(blocked.json()).toMatchObject({ detail: M.clientNotActive });
    await api('PATCH', `/admin/clients/${client.clientId}`, staff, {
      is_active: true,
      payment_links_enabled: true,
    });
    expect((await api('GET', '/projects', client.headers)).statusCode).toBe(200);
    expect((await api('PATCH', `/admin/clients/${client.clientId}`, staff, {})).statusCode).toBe(422);
    expect(
      (await api('PATCH', `/admin/clients/${client.clientId}`, staff, { is_frozen: true })).statusCode,
    ).toBe(422);
    const unknown = await api('PATCH', '/admin/clients/00000000-0000-4000-8000-000000000000', staff, {
      is_active: true,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('sets verification visibility groups', async () => {
    const res = await api('PUT', `/admin/clients/${client.clientId}/visibility-groups`, staff, {
      groups: ['poa', 'document_number'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ groups: ['document_number', 'poa'] });
    expect((await api('GET', `/admin/clients/${client.clientId}`, staff)).json().visibility_groups).toEqual([
      'document_number',
      'poa',
    ]);
    expect(
      (
        await api('PUT', `/admin/clients/${client.clientId}/visibility-groups`, staff, {
          groups: ['passwords'],
        })
      ).statusCode,
    ).toBe(422);
    const cleared = await api('PUT', `/admin/clients/${client.clientId}/visibility-groups`, staff, {
      groups: [],
    });
    expect(cleared.json()).toEqual({ groups: [] });
  });
});

describe('settings', () => {
  it('switches self-service registration', async () => {
    expect((await api('GET', '/admin/settings', staff)).json()).toEqual({ registration_enabled: true });
    const off = await api('PUT', '/admin/settings', staff, { registration_enabled: false });
    expect(off.json()).toEqual({ registration_enabled: false });
    expect((await api('GET', '/admin/settings', staff)).json()).toEqual({ registration_enabled: false });
    const reset = await api('PUT', '/admin/settings', staff, { registration_enabled: null });
    expect(reset.json()).toEqual({ registration_enabled: true });
    expect(
      (await api('PUT', '/admin/settings', client.headers, { registration_enabled: true })).statusCode,
    ).toBe(401);
  });
});
