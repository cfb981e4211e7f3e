/**
 * Notification links point at the dashboard: a real notification (an API credential created)
 * carries `/dashboard/developers` in `link.path` and in its email's "Open:" line, and a row written
 * before the dashboard paths (a dead `/settings/api-credentials`) is answered with today's path.
 * Following every kind in Chromium: test/browser/notification-links.test.ts.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { notificationEmailJob } from '../../src/modules/notifications/notification-email.service';
import { createTestApp, type MemoryMailer, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { insertOpco } from '../payments/fixtures';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_PUBLIC_URL: 'https://pay.example.com' } });
});
afterAll(() => ctx?.close());

describe('notification links', () => {
  it('lead to the dashboard page of the item, in the API and in the email', async () => {
    const owner = await createTestClient(ctx, { role: 'owner' });
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/api-credentials',
      headers: owner.headers,
      payload: { label: 'Backend', role: 'operations' },
    });
    expect(created.statusCode).toBe(201);
    const list = await ctx.app.inject({
      url: '/api/v1/notifications?category=security',
      headers: owner.headers,
    });
    const [n] = list.json().notifications;
    expect(n.link).toEqual({
      resource_type: 'api_credential',
      resource_id: created.json().credential_id,
      path: '/dashboard/developers',
    });
    // Security notifications are mailed by default only when they warn; make this one due to check the line.
    await ctx.db.execute(
      sql`update notifications set email_state = 'pending' where id = ${n.notification_id}::uuid`,
    );
    await runJobs(ctx, notificationEmailJob);
    const [account] = rowsOf<{ email: string }>(
      await ctx.db.execute(sql`select email from accounts where id = ${owner.accountId}::uuid`),
    );
    const mail = (ctx.mailer as MemoryMailer).lastTo(account!.email);
    expect(mail?.text).toContain('Open: https://pay.example.com/dashboard/developers\n');
  });

  it('answer rows written with the old paths with the dashboard path', async () => {
    const owner = await createTestClient(ctx, { role: 'owner' });
    const opcoId = await insertOpco(ctx, owner.clientId);
    await ctx.db.execute(sql`
      insert into notifications (id, client_id, account_id, category, severity, title, body, link, in_app, email_state, created_at)
      values (gen_random_uuid(), ${owner.clientId}::uuid, ${owner.accountId}::uuid, 'opcos', 'info', 'Old row', 'b',
              ${JSON.stringify({ resource_type: 'opco', resource_id: opcoId, path: `/opcos/${opcoId}` })}::jsonb,
              true, 'none', now())`);
    const list = await ctx.app.inject({ url: '/api/v1/notifications', headers: owner.headers });
    const old = list.json().notifications.find((x: { title: string }) => x.title === 'Old row');
    expect(old.link.path).toBe(`/dashboard/opcos/${opcoId}`);
  });
});
