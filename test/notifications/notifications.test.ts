/**
 * Notifications (docs/guides/notifications.md): fan-out by role and preferences, the inbox routes
 * (list, counts, flags, mark-seen / mark-all-read / archive-read with `before`), preferences with the
 * mandatory security channel, email by preference over real SMTP, the staff broadcast, retention,
 * and the notable changes wired so far (dead_letter, opco activated/rejected, security changes).
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { notificationEmailJob } from '../../src/modules/notifications/notification-email.service';
import { purgeOldNotifications } from '../../src/modules/notifications/notifications.worker';
import { notify } from '../../src/modules/notifications/notify.service';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { smtpApp } from '../helpers/suites';
import { staffHeaders } from '../org/fixtures';
import { insertOpco } from '../payments/fixtures';

const suite = smtpApp({ client: {} });
let ops: TestCaller;
let dev: TestCaller;

const call = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  suite.ctx.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers,
    ...(payload ? { payload } : {}),
  });

async function send(
  category: 'payments' | 'webhooks' | 'security',
  severity: 'info' | 'warning',
  title: string,
) {
  return suite.ctx.db.transaction((tx) =>
    notify(tx, {
      clientId: suite.owner.clientId,
      category,
      severity,
      title,
      body: `${title} body`,
      audience: { roles: ['owner', 'operations', 'developer'] },
      at: suite.ctx.clock.now(),
    }),
  );
}

beforeAll(async () => {
  ops = await createTestClient(suite.ctx, { role: 'operations', clientId: suite.owner.clientId });
  dev = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.owner.clientId });
});

describe('inbox', () => {
  it('lists, counts, marks seen/read/archived with `before` leaving newer items alone', async () => {
    await send('payments', 'info', 'first');
    suite.ctx.clock.advance(60_000);
    await send('payments', 'info', 'second');
    suite.ctx.clock.advance(1000);
    const cutoff = suite.ctx.clock.now().toISOString();
    suite.ctx.clock.advance(59_000);
    await send('webhooks', 'info', 'third');
    expect((await call('GET', '/notifications/counts', ops.headers)).json()).toEqual({
      unseen_count: 3,
      unread_count: 3,
    });
    const list = (await call('GET', '/notifications', ops.headers)).json();
    expect(list.notifications.map((n: { title: string }) => n.title)).toEqual(['third', 'second', 'first']);
    expect(list.pagination).toEqual({ total: 3, page: 1, page_size: 20, total_pages: 1 });
    expect(list.notifications[0]).toMatchObject({
      category: 'webhooks',
      severity: 'info',
      seen_at: null,
      read_at: null,
      archived_at: null,
      link: null,
    });

    const seen = await call('POST', '/notifications/mark-seen', ops.headers, { before: cutoff });
    expect(seen.json()).toEqual({ updated: 2 });
    expect((await call('GET', '/notifications/counts', ops.headers)).json()).toEqual({
      unseen_count: 1,
      unread_count: 3,
    });

    const read = await call('POST', '/notifications/mark-all-read', ops.headers, { category: 'payments' });
    expect(read.json()).toEqual({ updated: 2 });
    const archived = await call('POST', '/notifications/archive-read', ops.headers, { before: cutoff });
    expect(archived.json()).toEqual({ updated: 2 });
    const inbox = (await call('GET', '/notifications', ops.headers)).json();
    expect(inbox.notifications.map((n: { title: string }) => n.title)).toEqual(['third']);
    const archive = (await call('GET', '/notifications?archived=true&read=true', ops.headers)).json();
    expect(archive.pagination.total).toBe(2);
    expect(archive.notifications[0].read_at).not.toBeNull();

    // PATCH: read then unarchive; archiving never touches read_at.
    const id = inbox.notifications[0].notification_id;
    const patched = (
      await call('PATCH', `/notifications/${id}`, ops.headers, { read: true, archived: true })
    ).json();
    expect(patched.read_at).toBe(suite.ctx.clock.now().toISOString());
    expect(patched.seen_at).not.toBeNull();
    const back = (await call('PATCH', `/notifications/${id}`, ops.headers, { archived: false })).json();
    expect(back).toMatchObject({ archived_at: null, read_at: patched.read_at });
    // Other members' rows and unknown ids are 404.
    const foreign = await call('PATCH', `/notifications/${id}`, dev.headers, { read: true });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Notification not found' });
    // Each member has their own copy.
    expect((await call('GET', '/notifications/counts', dev.headers)).json()).toEqual({
      unseen_count: 3,
      unread_count: 3,
    });
  });

  it('is dashboard-only; page_size above 200 is 422', async () => {
    const api = await createTestClient(suite.ctx, { apiToken: true, clientId: suite.owner.clientId });
    const res = await call('GET', '/notifications', api.headers);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'This action requires a dashboard account token' });
    const big = await call('GET', '/notifications?page_size=201', suite.owner.headers);
    expect(big.statusCode).toBe(422);
    expect(big.json().detail[0].loc).toEqual(['query', 'page_size']);
  });
});

describe('preferences and email', () => {
  it('in-app security cannot be disabled; switched-off categories create no inbox rows', async () => {
    const bad = await call('PUT', '/notifications/preferences', dev.headers, { in_app: { security: false } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: 'Security notifications cannot be disabled' });
    const put = await call('PUT', '/notifications/preferences', dev.headers, {
      in_app: { payments: false },
      email: { payments: true, webhooks: false },
    });
    expect(put.statusCode).toBe(200);
    const prefs = (await call('GET', '/notifications/preferences', dev.headers)).json();
    expect(prefs.in_app).toMatchObject({ payments: false, security: true, webhooks: true });
    expect(prefs.email).toEqual({ payments: true, webhooks: false });
    expect(prefs.email_by_severity).toContain('security');

    const before = (await call('GET', '/notifications/counts', dev.headers)).json();
    await send('payments', 'info', 'email-only for dev');
    expect((await call('GET', '/notifications/counts', dev.headers)).json()).toEqual(before);
  });

  it('emails by preference: warning/critical by default, info only when chosen, never when off', async () => {
    await runJobs(suite.ctx, notificationEmailJob);
    suite.smtp.messages.length = 0;
    await send('payments', 'info', 'info-mail');
    await send('webhooks', 'warning', 'warning-mail');
    const sent = await runJobs(suite.ctx, notificationEmailJob);
    const to = (title: string) =>
      suite.smtp.messages.filter((m) => m.subject.includes(title)).map((m) => m.to[0]);
    const emails = rowsOf<{ id: string; email: string }>(
      await suite.ctx.db.execute(
        sql`select id, email from accounts where client_id = ${suite.owner.clientId}::uuid`,
      ),
    );
    const emailOf = (c: TestCaller) => emails.find((e) => e.id === c.accountId)!.email;
    // info: only dev chose email for payments.
    expect(to('info-mail')).toEqual([emailOf(dev)]);
    // warning: everyone by default except dev, who turned webhooks email off.
    const warned = to('warning-mail');
    expect(warned).toContain(emailOf(suite.owner));
    expect(warned).toContain(emailOf(ops));
    expect(warned).not.toContain(emailOf(dev));
    expect(sent).toBe(emails.length);
    const states = rowsOf<{ email_state: string }>(
      await suite.ctx.db.execute(
        sql`select distinct email_state from notifications where title = 'warning-mail'`,
      ),
    );
    expect(states.map((s) => s.email_state).sort()).toEqual(['none', 'sent']);
  });
});

describe('staff broadcast, retention, wired changes', () => {
  it('broadcasts a system notification by role and counts recipients', async () => {
    const staff = (await staffHeaders(suite.ctx)).headers;
    const res = await call('POST', '/admin/notifications', staff, {
      client_id: suite.owner.clientId,
      roles: ['owner', 'developer'],
      title: 'Maintenance',
      body: 'Sunday 02:00 UTC',
      severity: 'info',
      category: 'system',
    });
    expect(res.statusCode).toBe(201);
    const targeted = rowsOf<{ n: number }>(
      await suite.ctx.db.execute(
        sql`select count(*)::int as n from accounts where client_id = ${suite.owner.clientId}::uuid and role in ('owner', 'developer')`,
      ),
    )[0]!.n;
    expect(res.json()).toEqual({ recipients: Number(targeted) });
    const list = (await call('GET', '/notifications?category=system', ops.headers)).json();
    expect(list.pagination.total).toBe(0);
    const both = await call('POST', '/admin/notifications', staff, {
      client_id: suite.owner.clientId,
      all_clients: true,
      title: 'x',
      body: 'y',
      severity: 'info',
      category: 'system',
    });
    expect(both.statusCode).toBe(422);
    const unknown = await call('POST', '/admin/notifications', staff, {
      client_id: crypto.randomUUID(),
      title: 'x',
      body: 'y',
      severity: 'info',
      category: 'system',
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('retention deletes read or archived notifications older than the retention days', async () => {
    const count = async () =>
      Number(
        rowsOf<{ n: number }>(
          await suite.ctx.db.execute(sql`select count(*)::int as n from notifications`),
        )[0]!.n,
      );
    const before = await count();
    suite.ctx.clock.advance(91 * 86400_000);
    const deleted = await purgeOldNotifications(suite.ctx.deps);
    expect(deleted).toBeGreaterThan(0);
    const left = rowsOf<{ n: number }>(
      await suite.ctx.db.execute(
        sql`select count(*)::int as n from notifications where read_at is not null or archived_at is not null`,
      ),
    )[0]!.n;
    expect(Number(left)).toBe(0);
    expect(await count()).toBe(before - deleted);
  });

  it('an opco activated or rejected notifies owners and operations, not developers', async () => {
    const staff = (await staffHeaders(suite.ctx)).headers;
    const opcoId = await insertOpco(suite.ctx, suite.owner.clientId, {
      status: 'pending_superadmin_review',
      subTppId: null,
    });
    const res = await call('POST', `/admin/opcos/${opcoId}/reject`, staff, {
      reason: 'Incomplete documents',
    });
    expect(res.statusCode).toBe(200);
    const rows = rowsOf<{ account_id: string; title: string; body: string }>(
      await suite.ctx.db.execute(
        sql`select account_id, title, body from notifications where category = 'opcos'`,
      ),
    );
    const ids = rows.map((r) => r.account_id);
    expect(ids).toContain(suite.owner.accountId);
    expect(ids).toContain(ops.accountId);
    expect(ids).not.toContain(dev.accountId);
    expect(rows[0]!.title).toBe('Opco Acme Payments rejected');
    expect(rows[0]!.body).toContain('Incomplete documents');
  });
});
