/**
 * Team accounts through HTTP with real security challenges and a real SMTP capture: add (with the
 * emailed temporary password, and the 502 rollback), list, update, delete and their owner rules.
 */
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema/index';
import { verifyPassword } from '../../src/modules/auth/passwords/hashing.service';
import { M } from '../../src/shared/messages';
import { securityHeaders } from '../helpers/challenge';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp({ client: { role: 'owner' } });

const BASE = '/api/v1/auth/team/accounts';
let n = 0;
const uniqueEmail = () => `member-${Date.now().toString(36)}-${n++}@merchant.example`;

async function addMember(body: object, caller: TestCaller = suite.owner) {
  const headers = await securityHeaders(suite.ctx, suite.smtp, caller, 'ADD_MEMBER');
  return suite.ctx.app.inject({ method: 'POST', url: BASE, headers, payload: body });
}

async function patchMember(id: string, body: object, caller: TestCaller = suite.owner) {
  const headers = await securityHeaders(suite.ctx, suite.smtp, caller, 'UPDATE_MEMBER');
  return suite.ctx.app.inject({ method: 'PATCH', url: `${BASE}/${id}`, headers, payload: body });
}

async function deleteMember(id: string, caller: TestCaller = suite.owner) {
  const headers = await securityHeaders(suite.ctx, suite.smtp, caller, 'DELETE_MEMBER');
  return suite.ctx.app.inject({ method: 'DELETE', url: `${BASE}/${id}`, headers });
}

async function listAccounts(caller: TestCaller = suite.owner) {
  const res = await suite.ctx.app.inject({ url: BASE, headers: caller.headers });
  expect(res.statusCode).toBe(200);
  return res.json().accounts as { account_id: string; email: string; role: string; is_active: boolean }[];
}

describe('add a member', () => {
  it('creates the account and emails a working temporary password over SMTP', async () => {
    const email = uniqueEmail();
    const res = await addMember({ email: email.toUpperCase(), full_name: 'Jane Doe', role: 'operations' });
    expect(res.statusCode).toBe(201);
    const account = res.json();
    expect(account).toMatchObject({
      email,
      full_name: 'Jane Doe',
      role: 'operations',
      is_active: true,
      last_login_at: null,
      created_at: suite.ctx.clock.now().toISOString(),
    });
    expect(account.password_hash).toBeUndefined();

    const mail = await suite.smtp.waitFor(email, /Temporary password/);
    const password = /Temporary password: (\S+)/.exec(mail.text)![1]!;
    const [row] = await suite.ctx.db.select().from(accounts).where(eq(accounts.id, account.account_id));
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(row!.passwordHash, password)).toBe(true);

    expect((await listAccounts()).map((a) => a.account_id)).toContain(account.account_id);
  });

  it('refuses a duplicate email (case-insensitive) with 400', async () => {
    const email = uniqueEmail();
    expect((await addMember({ email, full_name: 'A', role: 'developer' })).statusCode).toBe(201);
    const dup = await addMember({ email: email.toUpperCase(), full_name: 'B', role: 'developer' });
    expect(dup.statusCode).toBe(400);
    expect(dup.json().detail).toBe(M.accountEmailExists);
    // Also across clients: login is by email.
    const other = await createTestClient(suite.ctx, { role: 'owner' });
    const cross = await addMember({ email, full_name: 'C', role: 'developer' }, other);
    expect(cross.json().detail).toBe(M.accountEmailExists);
  });

  it('answers 502 and leaves nothing behind when the email cannot be sent', async () => {
    const email = uniqueEmail();
    const headers = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'ADD_MEMBER');
    suite.smtp.failNext(1);
    const res = await suite.ctx.app.inject({
      method: 'POST',
      url: BASE,
      headers,
      payload: { email, full_name: 'Lost Mail', role: 'developer' },
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().detail).toBe(M.emailDeliveryFailed);
    const rows = await suite.ctx.db.select().from(accounts).where(sql`lower(${accounts.email}) = ${email}`);
    expect(rows).toEqual([]);
    expect((await listAccounts()).map((a) => a.email)).not.toContain(email);
    // The address is free again: a retry with a new challenge succeeds.
    expect((await addMember({ email, full_name: 'Lost Mail', role: 'developer' })).statusCode).toBe(201);
  });

  it('needs the ADD_MEMBER challenge', async () => {
    const body = { email: uniqueEmail(), full_name: 'X', role: 'developer' };
    const none = await suite.ctx.app.inject({
      method: 'POST',
      url: BASE,
      headers: suite.owner.headers,
      payload: body,
    });
    expect(none.statusCode).toBe(403);
    expect(none.json().detail).toBe(M.securityChallengeRequired);
    const wrong = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'DELETE_MEMBER');
    const res = await suite.ctx.app.inject({ method: 'POST', url: BASE, headers: wrong, payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('validates the body', async () => {
    const headers = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'ADD_MEMBER');
    const bad = await suite.ctx.app.inject({
      method: 'POST',
      url: BASE,
      headers,
      payload: { email: 'not-an-email', full_name: 'X', role: 'admin' },
    });
    expect(bad.statusCode).toBe(422);
    const locs = bad.json().detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toContain('body.email');
    expect(locs).toContain('body.role');
    const blank = await suite.ctx.app.inject({
      method: 'POST',
      url: BASE,
      headers,
      payload: { email: uniqueEmail(), full_name: '  ', role: 'developer' },
    });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().detail[0].loc).toEqual(['body', 'full_name']);
  });

  it('is owner-only and dashboard-only', async () => {
    for (const role of ['operations', 'developer'] as const) {
      const member = await createTestClient(suite.ctx, { role, clientId: suite.owner.clientId });
      const list = await suite.ctx.app.inject({ url: BASE, headers: member.headers });
      expect(list.statusCode).toBe(403);
      expect(list.json().detail).toBe(M.insufficientPermissions);
      const add = await suite.ctx.app.inject({
        method: 'POST',
        url: BASE,
        headers: member.headers,
        payload: { email: uniqueEmail(), full_name: 'X', role: 'owner' },
      });
      expect(add.json().detail).toBe(M.insufficientPermissions);
    }
    const api = await createTestClient(suite.ctx, { apiToken: true, clientId: suite.owner.clientId });
    const res = await suite.ctx.app.inject({ url: BASE, headers: api.headers });
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(M.dashboardTokenRequired);
  });
});

describe('update and delete', () => {
  it('updates role, name and active flag; the member’s live token follows at once', async () => {
    const member = await createTestClient(suite.ctx, { role: 'owner', clientId: suite.owner.clientId });
    expect((await suite.ctx.app.inject({ url: BASE, headers: member.headers })).statusCode).toBe(200);

    const res = await patchMember(member.accountId, { role: 'developer', full_name: 'Renamed' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      account_id: member.accountId,
      role: 'developer',
      full_name: 'Renamed',
    });
    const demoted = await suite.ctx.app.inject({ url: BASE, headers: member.headers });
    expect(demoted.statusCode).toBe(403);
    expect(demoted.json().detail).toBe(M.insufficientPermissions);

    const off = await patchMember(member.accountId, { is_active: false });
    // A partial update: the role and name sent earlier stay.
    expect(off.json()).toMatchObject({ is_active: false, role: 'developer', full_name: 'Renamed' });
    const refused = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: member.headers,
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toBe(M.accountNotActive);
  });

  it('keeps at least one active owner', async () => {
    const solo = await createTestClient(suite.ctx, { role: 'owner' });
    const demote = await patchMember(solo.accountId, { role: 'operations' }, solo);
    expect(demote.statusCode).toBe(400);
    expect(demote.json().detail).toBe(M.lastOwnerDemote);
    const deactivate = await patchMember(solo.accountId, { is_active: false }, solo);
    expect(deactivate.json().detail).toBe(M.lastOwnerDemote);
    const del = await deleteMember(solo.accountId, solo);
    expect(del.statusCode).toBe(400);
    expect(del.json().detail).toBe(M.lastOwnerDelete);
    // Harmless changes to the last owner are fine.
    const rename = await patchMember(solo.accountId, { full_name: 'Still Owner', role: 'owner' }, solo);
    expect(rename.statusCode).toBe(200);

    // With a second active owner, the first may step down.
    const second = await createTestClient(suite.ctx, { role: 'owner', clientId: solo.clientId });
    const stepDown = await patchMember(solo.accountId, { role: 'developer' }, solo);
    expect(stepDown.statusCode).toBe(200);
    const last = await patchMember(second.accountId, { is_active: false }, second);
    expect(last.json().detail).toBe(M.lastOwnerDemote);
  });

  it('keeps one owner when two owners demote each other concurrently', async () => {
    const a = await createTestClient(suite.ctx, { role: 'owner' });
    const b = await createTestClient(suite.ctx, { role: 'owner', clientId: a.clientId });
    const ha = await securityHeaders(suite.ctx, suite.smtp, a, 'UPDATE_MEMBER');
    const hb = await securityHeaders(suite.ctx, suite.smtp, b, 'UPDATE_MEMBER');
    const [ra, rb] = await Promise.all([
      suite.ctx.app.inject({
        method: 'PATCH',
        url: `${BASE}/${b.accountId}`,
        headers: ha,
        payload: { role: 'developer' },
      }),
      suite.ctx.app.inject({
        method: 'PATCH',
        url: `${BASE}/${a.accountId}`,
        headers: hb,
        payload: { role: 'developer' },
      }),
    ]);
    // Exactly one wins. The loser either reaches the last-owner rule (400) or, when the winner's
    // demotion committed before the loser was authenticated, is no longer an owner at all (403).
    const codes = [ra.statusCode, rb.statusCode].sort();
    expect(codes[0]).toBe(200);
    const loser = [ra, rb].find((r) => r.statusCode !== 200)!;
    expect([400, 403]).toContain(loser.statusCode);
    expect(loser.json().detail).toBe(
      loser.statusCode === 400 ? M.lastOwnerDemote : M.insufficientPermissions,
    );
    const owners = await suite.ctx.db
      .select()
      .from(accounts)
      .where(sql`${accounts.clientId} = ${a.clientId} and ${accounts.role} = 'owner'`);
    expect(owners).toHaveLength(1);
  });

  it('does not let an owner delete the account they are logged in with', async () => {
    await createTestClient(suite.ctx, { role: 'owner', clientId: suite.owner.clientId });
    const res = await deleteMember(suite.owner.accountId);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.cannotDeleteSelf);
  });

  it('deletes a member: 204, gone from the list, their token refused', async () => {
    const member = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.owner.clientId });
    const res = await deleteMember(member.accountId);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await listAccounts()).map((a) => a.account_id)).not.toContain(member.accountId);
    const refused = await suite.ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: member.headers,
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toBe(M.accountNotActive);
    const again = await deleteMember(member.accountId);
    expect(again.statusCode).toBe(404);
    expect(again.json().detail).toBe(M.accountNotFound);
  });

  it("answers 404 for another client's account and leaves it untouched", async () => {
    const other = await createTestClient(suite.ctx, { role: 'developer' });
    const patch = await patchMember(other.accountId, { full_name: 'Hijacked' });
    expect(patch.statusCode).toBe(404);
    expect(patch.json().detail).toBe(M.accountNotFound);
    const del = await deleteMember(other.accountId);
    expect(del.statusCode).toBe(404);
    const [row] = await suite.ctx.db.select().from(accounts).where(eq(accounts.id, other.accountId));
    expect(row!.fullName).not.toBe('Hijacked');
  });

  it('needs the matching challenge and a non-empty body', async () => {
    const member = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.owner.clientId });
    const wrong = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'DELETE_MEMBER');
    const res = await suite.ctx.app.inject({
      method: 'PATCH',
      url: `${BASE}/${member.accountId}`,
      headers: wrong,
      payload: { full_name: 'X' },
    });
    expect(res.json().detail).toBe(M.securityChallengeInvalid);
    const del = await suite.ctx.app.inject({
      method: 'DELETE',
      url: `${BASE}/${member.accountId}`,
      headers: suite.owner.headers,
    });
    expect(del.statusCode).toBe(403);
    expect(del.json().detail).toBe(M.securityChallengeRequired);
    const empty = await suite.ctx.app.inject({
      method: 'PATCH',
      url: `${BASE}/${member.accountId}`,
      headers: suite.owner.headers,
      payload: {},
    });
    expect(empty.statusCode).toBe(422);
    const badId = await suite.ctx.app.inject({
      method: 'DELETE',
      url: `${BASE}/123`,
      headers: suite.owner.headers,
    });
    expect(badId.statusCode).toBe(422);
    expect(badId.json().detail[0].loc).toEqual(['path', 'account_id']);
  });
});
