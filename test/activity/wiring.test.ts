/**
 * Every successful write of the existing modules appends an activity entry in its transaction,
 * with the actor and request facts, and secrets only as "[redacted]" (docs/guides/activity-logs.md).
 * A sample of more than 20 write routes, plus failed logins, a failed API-key exchange and a
 * permission denial. Security changes also notify the owners.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { hashPassword } from '../../src/modules/auth/passwords/hashing.service';
import { securityHeaders } from '../helpers/challenge';
import type { TestCaller } from '../helpers/clients';
import { smtpApp } from '../helpers/suites';
import { soleTraderBody, staffHeaders } from '../org/fixtures';
import { createPaylink, createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { simpleGraph } from '../workflows/fixtures';

const suite = smtpApp();
let w: PaymentWorld;
let owner: TestCaller;
const secrets: string[] = [];

const call = async (
  method: string,
  url: string,
  payload?: unknown,
  headers: Record<string, string> = owner.headers,
) => {
  const res = await suite.ctx.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  return res;
};
const ok = async (method: string, url: string, payload?: unknown, headers?: Record<string, string>) => {
  const res = await call(method, url, payload, headers);
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : null;
};

interface Entry {
  action: string;
  outcome: string;
  actor: { type: string; account_id: string | null; email: string | null; credential_id: string | null };
  target: { type: string | null; id: string | null; label: string | null };
  request: { method: string | null; path: string | null; request_id: string | null };
  changes: Record<string, { from: unknown; to: unknown }> | null;
  metadata: Record<string, unknown>;
}

/** The newest entry with this action, read through the API. */
async function latest(action: string): Promise<Entry> {
  const res = await call('GET', `/activity-logs?page_size=1&action=${encodeURIComponent(action)}`);
  const e = res.json().activity_logs[0];
  if (!e) throw new Error(`no activity entry ${action}`);
  return e;
}

const seen = new Set<string>();
async function expectEntry(action: string, method: string, path: RegExp, target: Partial<Entry['target']>) {
  const e = await latest(action);
  expect(e.outcome).toBe('success');
  expect(e.request.method).toBe(method);
  expect(e.request.path).toMatch(path);
  expect(e.request.request_id).toBeTruthy();
  expect(e.target).toMatchObject(target);
  if (e.actor.type === 'client_user') expect(e.actor.account_id).toBe(owner.accountId);
  const text = JSON.stringify(e);
  for (const s of secrets) expect(text).not.toContain(s);
  seen.add(`${method} ${path.source}`);
  return e;
}

beforeAll(async () => {
  w = await createPaymentWorld(suite.ctx);
  owner = w.caller;
});

describe('activity entries of existing write routes', () => {
  it('API credentials: created, secret reset, disabled – the secret never stored; owners notified', async () => {
    const created = await ok('POST', '/auth/api-credentials', { label: 'CI key', role: 'developer' });
    secrets.push(created.api_secret);
    let e = await expectEntry('api_credential.created', 'POST', /^\/api\/v1\/auth\/api-credentials$/, {
      type: 'api_credential',
      id: created.credential_id,
      label: 'CI key',
    });
    expect(e.changes!.api_secret).toEqual({ from: '[redacted]', to: '[redacted]' });
    const reset = await ok(
      'POST',
      `/auth/api-credentials/${created.credential_id}/reset-secret`,
      undefined,
      await securityHeaders(suite.ctx, suite.smtp, owner, 'REFRESH_API_KEY'),
    );
    secrets.push(reset.api_secret);
    e = await expectEntry('api_credential.secret_reset', 'POST', /reset-secret$/, {
      id: created.credential_id,
    });
    expect(e.changes).toEqual({ api_secret: { from: '[redacted]', to: '[redacted]' } });
    // A wrong secret for a known key is a failure entry of that credential.
    const bad = await call(
      'POST',
      '/auth/api-token',
      { api_key: created.api_key, api_secret: 'wrong-secret-xyz' },
      {},
    );
    expect(bad.statusCode).toBe(401);
    const failed = await latest('api_token.exchange_failed');
    expect(failed).toMatchObject({
      outcome: 'failure',
      actor: { type: 'client_api', credential_id: created.credential_id },
    });
    await ok('POST', `/auth/api-credentials/${created.credential_id}/disable`);
    await expectEntry('api_credential.disabled', 'POST', /disable$/, { id: created.credential_id });
    const notes = rowsOf<{ title: string; account_id: string }>(
      await suite.ctx.db.execute(
        sql`select title, account_id from notifications where client_id = ${owner.clientId}::uuid and category = 'security'`,
      ),
    );
    expect(notes.map((n) => n.title).sort()).toEqual([
      'API credential created',
      'API credential secret reset',
    ]);
    expect(new Set(notes.map((n) => n.account_id))).toEqual(new Set([owner.accountId]));
  });

  it('team: added (temporary password redacted), role changed, removed – each notifies owners', async () => {
    const added = await ok(
      'POST',
      '/auth/team/accounts',
      { email: 'new.member@example.com', full_name: 'New Member', role: 'developer' },
      await securityHeaders(suite.ctx, suite.smtp, owner, 'ADD_MEMBER'),
    );
    const mail = await suite.smtp.waitFor('new.member@example.com');
    const temp = /Temporary password: (\S+)/.exec(mail.text)![1]!;
    secrets.push(temp);
    const e = await expectEntry('team_member.added', 'POST', /team\/accounts$/, {
      type: 'team_member',
      id: added.account_id,
      label: 'new.member@example.com',
    });
    expect(e.changes!.temporary_password).toEqual({ from: '[redacted]', to: '[redacted]' });
    await ok(
      'PATCH',
      `/auth/team/accounts/${added.account_id}`,
      { role: 'operations' },
      await securityHeaders(suite.ctx, suite.smtp, owner, 'UPDATE_MEMBER'),
    );
    const changed = await expectEntry('team_member.role_changed', 'PATCH', /team\/accounts\//, {
      id: added.account_id,
    });
    expect(changed.changes).toEqual({ role: { from: 'developer', to: 'operations' } });
    await ok(
      'DELETE',
      `/auth/team/accounts/${added.account_id}`,
      undefined,
      await securityHeaders(suite.ctx, suite.smtp, owner, 'DELETE_MEMBER'),
    );
    await expectEntry('team_member.removed', 'DELETE', /team\/accounts\//, { id: added.account_id });
    const titles = rowsOf<{ title: string }>(
      await suite.ctx.db.execute(
        sql`select title from notifications where client_id = ${owner.clientId}::uuid and title like 'Team member%'`,
      ),
    ).map((r) => r.title);
    expect(titles.sort()).toEqual(['Team member added', 'Team member removed']);
  });

  it('settings, webhook subscription, its secret, destinations (create, edit, secret, delete)', async () => {
    await ok('PUT', '/auth/client/settings', { callback_url: 'https://merchant.example.com/back' });
    const s = await expectEntry('settings.updated', 'PUT', /client\/settings$/, { type: 'client_settings' });
    expect(s.changes).toEqual({
      callback_url: { from: 'https://merchant.example.com/return', to: 'https://merchant.example.com/back' },
    });
    await ok('PUT', '/webhooks/subscription', {
      webhook_url: 'https://hooks.example.com/in',
      webhook_enabled: true,
    });
    await expectEntry('webhook_subscription.updated', 'PUT', /webhooks\/subscription$/, {
      type: 'webhook_subscription',
    });
    const rotated = await ok('POST', '/webhooks/subscription/secret');
    secrets.push(rotated.webhook_secret ?? rotated.secret ?? 'unused-placeholder');
    const r = await expectEntry('webhook_subscription.secret_rotated', 'POST', /subscription\/secret$/, {});
    expect(r.changes).toEqual({ webhook_secret: { from: '[redacted]', to: '[redacted]' } });
    const dest = await ok('POST', '/webhooks/destinations', { url: 'https://hooks.example.com/two' });
    const destId = dest.destination_id;
    if (dest.secret) secrets.push(dest.secret);
    if (dest.signing_secret) secrets.push(dest.signing_secret);
    const c = await expectEntry('webhook_destination.created', 'POST', /webhooks\/destinations$/, {
      id: destId,
    });
    expect(c.changes!.signing_secret).toEqual({ from: '[redacted]', to: '[redacted]' });
    await ok('PATCH', `/webhooks/destinations/${destId}`, { description: 'second endpoint' });
    await expectEntry('webhook_destination.updated', 'PATCH', /destinations\//, { id: destId });
    await ok('POST', `/webhooks/destinations/${destId}/secret`);
    await expectEntry('webhook_destination.secret_rotated', 'POST', /secret$/, { id: destId });
    await ok('DELETE', `/webhooks/destinations/${destId}`);
    await expectEntry('webhook_destination.deleted', 'DELETE', /destinations\//, { id: destId });
  });

  it('projects, opcos, users, business customers, attestation', async () => {
    const p = await ok('POST', '/projects', { project_name: 'Second shop' });
    await expectEntry('project.created', 'POST', /\/projects$/, {
      type: 'project',
      id: p.project_id,
      label: 'Second shop',
    });
    await ok('PATCH', `/projects/${p.project_id}`, { project_name: 'Renamed shop' });
    const u = await expectEntry('project.updated', 'PATCH', /\/projects\//, { id: p.project_id });
    expect(u.changes).toEqual({ project_name: { from: 'Second shop', to: 'Renamed shop' } });
    const o = await ok('POST', '/opcos', soleTraderBody());
    await expectEntry('opco.created', 'POST', /\/opcos$/, { type: 'opco', id: o.opco_id });
    await ok('PATCH', `/opcos/${o.opco_id}`, { name: 'Renamed opco' });
    await expectEntry('opco.updated', 'PATCH', /\/opcos\//, { id: o.opco_id });
    await ok('POST', `/opcos/${o.opco_id}/submit`);
    const sub = await expectEntry('opco.submitted', 'POST', /submit$/, { id: o.opco_id });
    expect(sub.changes).toEqual({ status: { from: 'draft', to: 'awaiting_approval' } });
    const user = await ok('POST', '/kyc/users', { email: 'payer.one@example.com', first_name: 'Pat' });
    await expectEntry('user.created', 'POST', /kyc\/users$/, { type: 'user', id: user.user_id });
    const biz = await ok('POST', '/kyb/businesses', {
      company_name: 'Payer Co',
      country: 'GB',
      email: 'biz.one@example.com',
    });
    await expectEntry('business_customer.created', 'POST', /kyb\/businesses$/, { type: 'business_customer' });
    expect(biz).toBeTruthy();
    await ok('POST', `/kyc/users/${user.user_id}/attestation`, { status: 'verified', reference: 'ext-1' });
    await expectEntry('user.kyc_attested', 'POST', /attestation$/, { id: user.user_id });
  });

  it('workflows, payment links, intent cancel, MFA, notification preferences', async () => {
    const wf = await ok('POST', '/workflows', { name: 'wf', graph: simpleGraph() });
    await expectEntry('workflow.created', 'POST', /\/workflows$/, { type: 'workflow', id: wf.definition_id });
    await ok('POST', `/workflows/${wf.definition_id}/publish`);
    await expectEntry('workflow.published', 'POST', /publish$/, { id: wf.definition_id });
    const t = await createPaylink(suite.ctx, w);
    await expectEntry('payment_link.created', 'POST', /checkout\/paylink$/, {
      type: 'transaction',
      id: t.transaction_id,
    });
    await ok('POST', `/checkout/intent/${t.transaction_id}/cancel`);
    const cancel = await expectEntry('transaction.canceled', 'POST', /cancel$/, { id: t.transaction_id });
    expect(cancel.changes).toEqual({ status: { from: 'pending', to: 'canceled' } });
    await ok('PUT', '/auth/mfa/me', {
      mfa_use_client_default: false,
      mfa_enabled: true,
      email_enabled: true,
      preferred_method: 'email',
    });
    await expectEntry('mfa.updated', 'PUT', /mfa\/me$/, { type: 'account', id: owner.accountId });
    await ok('PUT', '/notifications/preferences', { email: { payments: true } });
    await expectEntry('notification_preferences.updated', 'PUT', /preferences$/, { id: owner.accountId });
  });

  it('staff actions are service_internal with no staff identity', async () => {
    const staff = (await staffHeaders(suite.ctx)).headers;
    await ok('PATCH', `/admin/clients/${owner.clientId}`, { kyc_links_enabled: false }, staff);
    const e = await latest('client.switches_changed');
    expect(e.actor).toEqual({
      type: 'service_internal',
      account_id: null,
      email: null,
      credential_id: null,
      credential_label: null,
    });
    expect(e.request).toMatchObject({ method: 'PATCH', path: `/api/v1/admin/clients/${owner.clientId}` });
    expect(e.changes).toEqual({ kyc_links_enabled: { from: null, to: false } });
    seen.add('PATCH admin/clients');
  });

  it('failed logins (a known email) are failure entries naming the account tried', async () => {
    const hash = await hashPassword('correct horse battery staple');
    await suite.ctx.db.execute(
      sql`update accounts set password_hash = ${hash} where id = ${owner.accountId}::uuid`,
    );
    const email = rowsOf<{ email: string }>(
      await suite.ctx.db.execute(sql`select email from accounts where id = ${owner.accountId}::uuid`),
    )[0]!.email;
    const res = await call(
      'POST',
      '/auth/login',
      { client_email: email, password: 'not the password at all' },
      {},
    );
    expect(res.statusCode).toBe(401);
    const e = await latest('login.failed');
    expect(e).toMatchObject({
      outcome: 'failure',
      actor: { type: 'client_user', account_id: owner.accountId, email },
      request: { method: 'POST', path: '/api/v1/auth/login' },
    });
    expect(JSON.stringify(e)).not.toContain('not the password at all');
    // The right password (MFA is on for this account since the test above): an OTP challenge, no failure.
    const good = await call(
      'POST',
      '/auth/login',
      { client_email: email, password: 'correct horse battery staple' },
      {},
    );
    expect(good.json().token_type).toBe('otp_pending');
    expect((await call('GET', '/activity-logs?action=login.failed')).json().total).toBe(1);
  });

  it('covered more than 20 distinct write routes', () => {
    expect(seen.size).toBeGreaterThanOrEqual(20);
  });
});
