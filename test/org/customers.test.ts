/** Users (/kyc/users, /kyc/lists) and business customers (/kyb/businesses) over HTTP. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kycUsers } from '../../src/db/schema/index';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';

let ctx: TestContext;
let owner: TestCaller;
let other: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  other = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers, payload: payload as object });

describe('users', () => {
  it('creates a user with kyc_status none and reads it back', async () => {
    const res = await api('POST', '/kyc/users', owner.headers, {
      email: 'jane@example.com',
      first_name: 'Jane',
      last_name: 'Doe',
      external_ref: 'cust-1',
    });
    expect(res.statusCode).toBe(201);
    const u = res.json();
    expect(u).toEqual({
      user_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: 'jane@example.com',
      first_name: 'Jane',
      last_name: 'Doe',
      external_ref: 'cust-1',
      kyc_status: 'none',
      verification_mode: 'service_kyc',
      external_status: null,
      created_at: ctx.clock.now().toISOString(),
      updated_at: ctx.clock.now().toISOString(),
    });
    expect((await api('GET', `/kyc/users/${u.user_id}`, owner.headers)).json()).toEqual(u);
  });

  it('the same email twice under one client is 409 (case-insensitive); another client may reuse it', async () => {
    const body = { email: 'dup@example.com', first_name: 'D' };
    expect((await api('POST', '/kyc/users', owner.headers, body)).statusCode).toBe(201);
    const dup = await api('POST', '/kyc/users', owner.headers, { ...body, email: 'DUP@example.com' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ detail: M.userEmailExists });
    expect((await api('POST', '/kyc/users', other.headers, body)).statusCode).toBe(201);
  });

  it('validates the body (422)', async () => {
    for (const body of [
      {},
      { email: 'not-an-email', first_name: 'X' },
      { email: 'a@example.com' },
      { email: 'a@example.com', first_name: 'X', role: 'admin' },
    ]) {
      expect((await api('POST', '/kyc/users', owner.headers, body)).statusCode, JSON.stringify(body)).toBe(
        422,
      );
    }
  });

  it('lists newest first with pagination, kyc_status and q filters', async () => {
    const c = await createTestClient(ctx);
    const ids: string[] = [];
    for (const [email, first, last, ref] of [
      ['alice@example.com', 'Alice', 'Smith', 'ref-100'],
      ['bob@example.com', 'Bob', 'Jones', 'ref-200'],
      ['carol@sample.org', 'Carol', 'Smithers', null],
    ] as const) {
      ctx.clock.advanceSeconds(1);
      const r = await api('POST', '/kyc/users', c.headers, {
        email,
        first_name: first,
        last_name: last,
        external_ref: ref,
      });
      ids.push(r.json().user_id);
    }
    await ctx.db.update(kycUsers).set({ kycStatus: 'approved' }).where(eq(kycUsers.id, ids[1]!));
    const all = (await api('GET', '/kyc/lists', c.headers)).json();
    expect(all.users.map((u: { user_id: string }) => u.user_id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(all.pagination).toEqual({ total: 3, page: 1, page_size: 20, total_pages: 1 });
    const page = (await api('GET', '/kyc/lists?page=2&page_size=2', c.headers)).json();
    expect(page.users.map((u: { user_id: string }) => u.user_id)).toEqual([ids[0]]);
    expect(page.pagination).toEqual({ total: 3, page: 2, page_size: 2, total_pages: 2 });
    const approved = (await api('GET', '/kyc/lists?kyc_status=approved', c.headers)).json();
    expect(approved.users.map((u: { user_id: string }) => u.user_id)).toEqual([ids[1]]);
    const smith = (await api('GET', '/kyc/lists?q=SMITH', c.headers)).json();
    expect(smith.pagination.total).toBe(2);
    expect((await api('GET', '/kyc/lists?q=ref-2', c.headers)).json().users[0].user_id).toBe(ids[1]);
    expect((await api('GET', '/kyc/lists?q=sample.org', c.headers)).json().users[0].user_id).toBe(ids[2]);
    expect((await api('GET', '/kyc/lists?q=%25', c.headers)).json().pagination.total).toBe(0);
    expect((await api('GET', '/kyc/lists?q=smith&kyc_status=none', c.headers)).json().pagination.total).toBe(
      2,
    );
    expect((await api('GET', '/kyc/users?q=bob', c.headers)).json().users[0].user_id).toBe(ids[1]);
    expect((await api('GET', '/kyc/lists?page_size=201', c.headers)).statusCode).toBe(422);
    expect((await api('GET', '/kyc/lists?kyc_status=weird', c.headers)).statusCode).toBe(422);
  });

  it("another client's user is 404 and never listed", async () => {
    const u = (
      await api('POST', '/kyc/users', owner.headers, { email: 'private@example.com', first_name: 'P' })
    ).json();
    const res = await api('GET', `/kyc/users/${u.user_id}`, other.headers);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: M.userNotFound });
    expect((await api('GET', '/kyc/lists?q=private', other.headers)).json().pagination.total).toBe(0);
    expect((await api('GET', '/kyc/users/nope', owner.headers)).json().detail[0].loc).toEqual([
      'path',
      'user_id',
    ]);
  });

  it('developers get 403 (KYC management is owner and operations)', async () => {
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    expect(
      (await api('POST', '/kyc/users', ops.headers, { email: 'ops@example.com', first_name: 'O' }))
        .statusCode,
    ).toBe(201);
    for (const [method, url, body] of [
      ['POST', '/kyc/users', { email: 'dev@example.com', first_name: 'D' }],
      ['GET', '/kyc/lists', undefined],
      ['GET', '/kyc/users/00000000-0000-4000-8000-000000000000', undefined],
    ] as const) {
      const res = await api(method, url, dev.headers, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({
        detail: M.insufficientPermissions,
        required_permission: expect.any(String),
      });
    }
    expect((await api('GET', '/kyc/lists', {})).statusCode).toBe(401);
  });
});

describe('business customers', () => {
  it('creates, reads and lists business customers', async () => {
    const c = await createTestClient(ctx);
    const res = await api('POST', '/kyb/businesses', c.headers, {
      company_name: 'Globex GmbH',
      registration_number: 'HRB 12345',
      country: 'de',
      email: 'finance@globex.example',
    });
    expect(res.statusCode).toBe(201);
    const b = res.json();
    expect(b).toMatchObject({
      company_name: 'Globex GmbH',
      registration_number: 'HRB 12345',
      country: 'DE',
      email: 'finance@globex.example',
      kyb_status: 'none',
      verification_mode: 'service_kyb',
      external_status: null,
    });
    expect((await api('GET', `/kyb/businesses/${b.business_customer_id}`, c.headers)).json()).toEqual(b);
    ctx.clock.advanceSeconds(1);
    const b2 = (
      await api('POST', '/kyb/businesses', c.headers, {
        company_name: 'Initech',
        country: 'US',
        email: 'ap@initech.example',
      })
    ).json();
    expect(b2.registration_number).toBeNull();
    const list = (await api('GET', '/kyb/businesses', c.headers)).json();
    expect(
      list.business_customers.map((x: { business_customer_id: string }) => x.business_customer_id),
    ).toEqual([b2.business_customer_id, b.business_customer_id]);
    expect(list.pagination).toEqual({ total: 2, page: 1, page_size: 20, total_pages: 1 });
    expect((await api('GET', '/kyb/businesses?q=hrb', c.headers)).json().pagination.total).toBe(1);
    expect(
      (await api('GET', '/kyb/businesses?q=initech', c.headers)).json().business_customers[0].company_name,
    ).toBe('Initech');
    expect((await api('GET', '/kyb/businesses?kyb_status=on_hold', c.headers)).json().pagination.total).toBe(
      0,
    );
    expect(
      (await api('GET', '/kyb/businesses?page_size=2&page=2', c.headers)).json().business_customers,
    ).toEqual([]);
    expect((await api('GET', '/kyb/businesses?page_size=201', c.headers)).statusCode).toBe(422);
  });

  it('duplicate email is 409; bad bodies 422', async () => {
    const body = { company_name: 'Dup Ltd', country: 'GB', email: 'dup@dup.example' };
    expect((await api('POST', '/kyb/businesses', owner.headers, body)).statusCode).toBe(201);
    const dup = await api('POST', '/kyb/businesses', owner.headers, { ...body, company_name: 'Other' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ detail: M.businessEmailExists });
    for (const bad of [
      { ...body, country: 'GBR' },
      { ...body, email: 'x' },
      { country: 'GB', email: 'a@b.example' },
    ]) {
      expect((await api('POST', '/kyb/businesses', owner.headers, bad)).statusCode).toBe(422);
    }
  });

  it("another client's business is 404; developers 403", async () => {
    const b = (
      await api('POST', '/kyb/businesses', owner.headers, {
        company_name: 'Mine',
        country: 'GB',
        email: 'mine@x.example',
      })
    ).json();
    const res = await api('GET', `/kyb/businesses/${b.business_customer_id}`, other.headers);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: M.businessCustomerNotFound });
    expect((await api('GET', '/kyb/businesses?q=mine', other.headers)).json().pagination.total).toBe(0);
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    expect((await api('GET', '/kyb/businesses', dev.headers)).statusCode).toBe(403);
    expect(
      (
        await api('POST', '/kyb/businesses', dev.headers, {
          company_name: 'D',
          country: 'GB',
          email: 'd@x.example',
        })
      ).statusCode,
    ).toBe(403);
    expect((await api('GET', `/kyb/businesses/${b.business_customer_id}`, dev.headers)).statusCode).toBe(403);
  });
});
