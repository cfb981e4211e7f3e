/**
 * The cross-cutting pieces of the named areas (docs/guides/index.md): feature switches, the
 * permission matrix entries, event types, transaction `origin`, platform payment links with their own
 * key scope, the activity-log writer (actor, request facts, redaction, append-only), notification
 * fan-out by role and preferences, and the generic idempotency of "(idem)" endpoints.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import {
  activityLogs,
  notificationPreferences,
  notifications,
  transactions,
} from '../../src/db/schema/index';
import { recordActivity } from '../../src/modules/activity/activity-writer.service';
import { permissionsForRole } from '../../src/modules/auth/team/permissions.policy';
import { assertFeatureEnabled, effectiveFeatures } from '../../src/modules/features/features.service';
import { notify } from '../../src/modules/notifications/notify.service';
import { createPlatformPaymentLink } from '../../src/modules/payments/paylink.service';
import { AUTOMATIC } from '../../src/modules/payments/status.service';
import { onPaymentStatus, type PaymentStatusChange } from '../../src/modules/payments/status-events.service';
import { EVENT_TYPES } from '../../src/outbox/event-types';
import { runIdempotent } from '../../src/platform/idempotency';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { staffHeaders } from '../org/fixtures';
import {
  createPaylink,
  createPaymentWorld,
  newKey,
  type PaymentWorld,
  paylinkBody,
} from '../payments/fixtures';

let ctx: TestContext;
let w: PaymentWorld;
/** What a feature listening to its `invoice` payments saw (the listener below, on this file's app). */
const seenByInvoiceListener: PaymentStatusChange[] = [];

beforeAll(async () => {
  ctx = await createTestApp({
    subscriptions: [
      onPaymentStatus('invoice', async (change, { tx }) => {
        const [row] = await tx.select().from(transactions).where(eq(transactions.id, change.transaction.id));
        expect(row!.status).toBe(change.to); // the listener sees the move, uncommitted, in the same transaction
        seenByInvoiceListener.push(change);
      }),
    ],
  });
  w = await createPaymentWorld(ctx);
});
afterAll(() => ctx.close());

describe('feature switches', () => {
  it('default to on in sandbox; travel rule and recurring payments default to off in production', () => {
    expect(Object.values(effectiveFeatures('sandbox', {})).every(Boolean)).toBe(true);
    const prod = effectiveFeatures('production', {});
    expect(prod.travel_rule).toBe(false);
    expect(prod.recurring_payments).toBe(false);
    expect(prod.contracts && prod.transaction_monitoring && prod.wallet_screening).toBe(true);
    expect(effectiveFeatures('production', { travel_rule: true }).travel_rule).toBe(true);
  });

  it('staff switch an area per client; writes there answer 403 with the area name', async () => {
    const staff = await staffHeaders(ctx);
    const client = await createTestClient(ctx);
    const off = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/clients/${client.clientId}`,
      headers: staff.headers,
      payload: { features: { contracts: false, travel_rule: false } },
    });
    expect(off.statusCode).toBe(200);
    expect(off.json().features).toMatchObject({
      contracts: false,
      travel_rule: false,
      wallet_screening: true,
    });
    await expect(assertFeatureEnabled(ctx.db, 'sandbox', client.clientId, 'contracts')).rejects.toMatchObject(
      {
        statusCode: 403,
        detail: 'Contracts is disabled for this client',
      },
    );
    await expect(
      assertFeatureEnabled(ctx.db, 'sandbox', client.clientId, 'travel_rule'),
    ).rejects.toMatchObject({ detail: 'Travel rule is disabled for this client' });
    // Changing one switch keeps the others.
    const on = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/clients/${client.clientId}`,
      headers: staff.headers,
      payload: { features: { contracts: true } },
    });
    expect(on.json().features).toMatchObject({ contracts: true, travel_rule: false });
    await assertFeatureEnabled(ctx.db, 'sandbox', client.clientId, 'contracts');
    const bad = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/clients/${client.clientId}`,
      headers: staff.headers,
      payload: { features: { teleportation: true } },
    });
    expect(bad.statusCode).toBe(422);
  });
});

describe('permissions and event types', () => {
  it('roles carry the named-area permissions of the section 0 table', () => {
    const ops = permissionsForRole('operations');
    const dev = permissionsForRole('developer');
    const owner = permissionsForRole('owner');
    expect(owner).toContain('monitoring.policy.write');
    expect(ops).not.toContain('monitoring.policy.write');
    expect(dev).toContain('contracts.templates.write');
    expect(dev).not.toContain('contracts.send');
    expect(ops).not.toContain('activity.read');
    expect(ops).not.toContain('billing.write');
    expect(dev).not.toContain('billing.read');
    expect(dev).toContain('tickets.write');
  });

  it('lists the spec 13 event types first, then the named-area types in order, then refunds', async () => {
    const res = await ctx.app.inject({ url: '/api/v1/webhooks/events', headers: w.caller.headers });
    const types = res.json().event_types as string[];
    expect(types.slice(0, 13)).toEqual(EVENT_TYPES.slice(0, 13));
    expect(types.slice(13)).toEqual([
      'screening.wallet.completed',
      'screening.wallet_ownership.status_changed',
      'travel_rule.transfer.status_changed',
      'recurring_payment.status_changed',
      'recurring_payment.run.status_changed',
      'payment_schedule.status_changed',
      'payment_schedule.instalment.status_changed',
      'paylink.bulk.status_changed',
      'ticket.status_changed',
      'ticket.message.created',
      'billing.invoice.status_changed',
      'refund.created',
      'refund.status_changed',
    ]);
  });
});

describe('transaction origin and platform payment links', () => {
  it('API links have origin paylink; platform links carry their origin and filter by origin_type', async () => {
    const api = await createPaylink(ctx, w);
    const got = await ctx.app.inject({
      url: `/api/v1/transactions/${api.transaction_id}`,
      headers: w.caller.headers,
    });
    expect(got.json().origin).toEqual({ type: 'paylink', id: null });

    const scheduleId = '0190f0a0-0000-7000-8000-000000000001';
    const made = await createPlatformPaymentLink(ctx.deps, {
      clientId: w.caller.clientId,
      actor: AUTOMATIC,
      key: `schedule:${scheduleId}:1`,
      body: { ...paylinkBody(w), expires_in_seconds: 3600 },
      origin: { type: 'schedule', id: scheduleId },
    });
    expect(made.created).toBe(true);
    // The same derived key replays; it never makes a second payment.
    const again = await createPlatformPaymentLink(ctx.deps, {
      clientId: w.caller.clientId,
      actor: AUTOMATIC,
      key: `schedule:${scheduleId}:1`,
      body: { ...paylinkBody(w), expires_in_seconds: 3600 },
      origin: { type: 'schedule', id: scheduleId },
    });
    expect(again).toMatchObject({ created: false, transaction: { id: made.transaction.id } });
    // A merchant key with the same text lives in another scope: a new payment.
    const merchant = await createPaylink(ctx, w, {}, `schedule:${scheduleId}:1`);
    expect(merchant.transaction_id).not.toBe(made.transaction.id);

    const list = await ctx.app.inject({
      url: '/api/v1/transactions?origin_type=schedule',
      headers: w.caller.headers,
    });
    expect(list.json().pagination.total).toBe(1);
    expect(list.json().transactions[0]).toMatchObject({
      transaction_id: made.transaction.id,
      origin: { type: 'schedule', id: scheduleId },
    });
    const bad = await ctx.app.inject({
      url: '/api/v1/transactions?origin_type=nope',
      headers: w.caller.headers,
    });
    expect(bad.statusCode).toBe(422);
  });

  it('a status change of a platform payment reaches its feature listener inside the same transaction', async () => {
    const seen = seenByInvoiceListener;
    seen.length = 0;
    const invoiceId = '0190f0a0-0000-7000-8000-0000000000aa';
    const made = await createPlatformPaymentLink(ctx.deps, {
      clientId: w.caller.clientId,
      actor: AUTOMATIC,
      key: `invoice:${invoiceId}`,
      body: { ...paylinkBody(w), expires_in_seconds: 3600 },
      origin: { type: 'invoice', id: invoiceId },
    });
    const sim = (provider_status: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/api/v1/sandbox/transactions/${made.transaction.id}/simulate`,
        headers: w.caller.headers,
        payload: { provider_status },
      });
    expect((await sim('awaiting_bank_authorization')).statusCode).toBe(200);
    expect((await sim('completed')).statusCode).toBe(200);
    expect(seen.map((c) => [c.from, c.to])).toEqual([
      ['pending', 'processing'],
      ['processing', 'success'],
    ]);
    // Payments of other origins do not reach it.
    const other = await createPaylink(ctx, w);
    await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/sandbox/transactions/${other.transaction_id}/simulate`,
      headers: w.caller.headers,
      payload: { provider_status: 'awaiting_bank_authorization' },
    });
    expect(seen).toHaveLength(2);
  });

  it('payment creation writes an activity entry with the actor and request facts', async () => {
    const t = await createPaylink(ctx, w);
    const [entry] = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.clientId, w.caller.clientId), eq(activityLogs.targetId, t.transaction_id)));
    expect(entry).toMatchObject({
      action: 'payment_link.created',
      outcome: 'success',
      actorType: 'client_user',
      actorAccountId: w.caller.accountId,
      targetType: 'transaction',
      method: 'POST',
      path: '/api/v1/checkout/paylink',
    });
    expect(entry!.actorEmail).toMatch(/@example\.com$/);
    expect(entry!.requestId).toBeTruthy();
  });
});

describe('activity-log writer', () => {
  it('redacts secrets, codes and tokens, and outside a request the actor is system', async () => {
    const at = ctx.clock.now();
    await ctx.db.transaction((tx) =>
      recordActivity(tx, {
        clientId: w.caller.clientId,
        action: 'api_credential.secret_reset',
        at,
        target: { type: 'api_credential', id: 'k1', label: 'CI' },
        changes: { api_secret: { from: 'old-secret', to: 'new-secret' }, label: { from: 'a', to: 'b' } },
        metadata: { otp_code: '123456', access_token: 'eyJ...', note: 'kept' },
      }),
    );
    const [e] = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.clientId, w.caller.clientId), eq(activityLogs.targetId, 'k1')));
    expect(e!.actorType).toBe('system');
    expect(e!.changes).toEqual({
      api_secret: { from: '[redacted]', to: '[redacted]' },
      label: { from: 'a', to: 'b' },
    });
    expect(e!.metadata).toEqual({ otp_code: '[redacted]', access_token: '[redacted]', note: 'kept' });
    expect(JSON.stringify(e)).not.toMatch(/old-secret|new-secret|123456|eyJ/);
  });

  it('is append-only: UPDATE, DELETE and TRUNCATE are refused unless the retention job asks', async () => {
    await expect(ctx.db.execute(sql`update activity_logs set action = 'x'`)).rejects.toThrow();
    await expect(ctx.db.execute(sql`delete from activity_logs`)).rejects.toThrow();
    await expect(ctx.db.execute(sql`truncate activity_logs`)).rejects.toThrow();
    const before = rowsOf<{ n: number }>(
      await ctx.db.execute(sql`select count(*)::int as n from activity_logs`),
    )[0]!.n;
    expect(before).toBeGreaterThan(0);
    // The retention job's switch allows DELETE for its own transaction only.
    await ctx.db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('svc.activity_retention', 'on', true)`);
      await tx.execute(sql`delete from activity_logs where action = 'api_credential.secret_reset'`);
    });
    await expect(ctx.db.execute(sql`delete from activity_logs`)).rejects.toThrow();
  });
});

describe('notification fan-out', () => {
  it('writes one row per active member of the audience, honouring preferences', async () => {
    const owner = await createTestClient(ctx, { role: 'owner' });
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    await ctx.db.insert(notificationPreferences).values({
      accountId: ops.accountId,
      clientId: owner.clientId,
      inApp: { monitoring: false },
      email: { monitoring: true },
    });
    const at = ctx.clock.now();
    const n = await ctx.db.transaction((tx) =>
      notify(tx, {
        clientId: owner.clientId,
        category: 'monitoring',
        severity: 'info',
        title: 'Transaction needs review',
        body: 'ref-1 is IN_REVIEW',
        audience: { roles: ['owner', 'operations'] },
        at,
      }),
    );
    expect(n).toBe(2);
    const rows = await ctx.db.select().from(notifications).where(eq(notifications.clientId, owner.clientId));
    const byAccount = new Map(rows.map((r) => [r.accountId, r]));
    expect(byAccount.has(dev.accountId)).toBe(false);
    // Owner: in-app by default; info sends no email by default.
    expect(byAccount.get(owner.accountId)).toMatchObject({ inApp: true, emailState: 'none' });
    // Operations turned in-app off and email on for monitoring.
    expect(byAccount.get(ops.accountId)).toMatchObject({ inApp: false, emailState: 'pending' });

    // Security always reaches the in-app inbox; warning and critical email by default.
    await ctx.db.insert(notificationPreferences).values({
      accountId: owner.accountId,
      clientId: owner.clientId,
      inApp: { security: false },
    });
    await ctx.db.transaction((tx) =>
      notify(tx, {
        clientId: owner.clientId,
        category: 'security',
        severity: 'warning',
        title: 'API credential created',
        body: 'CI',
        audience: { roles: ['owner'], accountIds: [owner.accountId] },
        at,
      }),
    );
    const sec = await ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.accountId, owner.accountId), eq(notifications.category, 'security')));
    expect(sec).toHaveLength(1);
    expect(sec[0]).toMatchObject({ inApp: true, emailState: 'pending' });
  });
});

describe('generic idempotency of (idem) endpoints', () => {
  const scope = 'test.create';
  async function create(key: string | undefined, payload: unknown, required = true) {
    return runIdempotent(
      ctx.deps,
      { clientId: w.caller.clientId, scope, header: key, required, payload },
      async (commit) =>
        ctx.db.transaction(async (tx) => {
          const [row] = await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(transactions)
            .where(eq(transactions.clientId, w.caller.clientId));
          const body = { made: newKey(), seen: row!.n };
          await commit(tx, body);
          return { body, status: 201 };
        }),
    );
  }

  it('replays the same key and payload, refuses another payload, and checks the header', async () => {
    const key = newKey();
    const first = await create(key, { a: 1 });
    expect(first).toMatchObject({ replayed: false, status: 201 });
    const again = await create(key, { a: 1 });
    expect(again).toMatchObject({ replayed: true, status: 200, body: first.body });
    await expect(create(key, { a: 2 })).rejects.toMatchObject({
      statusCode: 409,
      detail: 'Idempotency key already used with a different request payload.',
    });
    await expect(create(undefined, { a: 1 })).rejects.toMatchObject({
      statusCode: 400,
      detail: 'X-Idempotency-Key must not be empty',
    });
    await expect(create('  ', { a: 1 }, false)).rejects.toMatchObject({ statusCode: 400 });
    const optional = await create(undefined, { a: 1 }, false);
    expect(optional.replayed).toBe(false);
  });

  it('a concurrent burst with one key runs the work once', async () => {
    const key = newKey();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => create(key, { burst: true })));
    const ok = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => (r as PromiseFulfilledResult<{ body: { made: string }; replayed: boolean }>).value);
    const fresh = ok.filter((r) => !r.replayed);
    expect(fresh).toHaveLength(1);
    for (const r of ok) expect(r.body.made).toBe(fresh[0]!.body.made);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        statusCode: 409,
        detail: 'Duplicated request with same idempotency key is still being processed.',
      });
  });

  it('a failed request releases its key', async () => {
    const key = newKey();
    await expect(
      runIdempotent(
        ctx.deps,
        { clientId: w.caller.clientId, scope, header: key, required: true, payload: {} },
        async () => {
          throw new Error('boom');
        },
      ),
    ).rejects.toThrow('boom');
    const retry = await create(key, {});
    expect(retry.replayed).toBe(false);
  });
});
