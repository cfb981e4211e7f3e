/**
 * The webhook endpoints: subscription, secret rotation, test event, event types, destinations
 * (own secrets, filters), delivery history with filters and pagination, permissions, isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { EVENT_TYPES } from '../../src/outbox/event-types';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { emitTestEvent, signatureMatches } from '../helpers/webhooks';

let ctx: TestContext;
let rx: Receiver;
let dispatcher: DeliveryDispatcher;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_WEBHOOK_BACKOFF_SECONDS: '0,1,1,1,1,1,1,1' } });
  rx = await startReceiver();
  dispatcher = createDeliveryDispatcher(ctx.deps);
});
afterAll(async () => {
  await dispatcher.close();
  await rx.close();
  await ctx.close();
});

const api = (c: TestCaller, method: string, url: string, payload?: unknown) =>
  ctx.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers: c.headers,
    payload: payload as object,
  });

describe('subscription', () => {
  it('reads and updates the main webhook settings and event types', async () => {
    const c = await createTestClient(ctx);
    let res = await api(c, 'GET', '/webhooks/subscription');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ webhook_url: null, webhook_enabled: false, event_types: [] });

    res = await api(c, 'PUT', '/webhooks/subscription', { webhook_enabled: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.webhookUrlRequired);

    res = await api(c, 'PUT', '/webhooks/subscription', { webhook_url: 'ftp://example.com/x' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'webhook_url']);

    res = await api(c, 'PUT', '/webhooks/subscription', { event_types: ['payment.status_changed', 'nope'] });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'event_types', 1]);

    res = await api(c, 'PUT', '/webhooks/subscription', {
      webhook_url: 'https://merchant.example.com/hooks',
      webhook_enabled: true,
      event_types: ['payment.status_changed', 'payment.status_changed', 'opco.status_changed'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      webhook_url: 'https://merchant.example.com/hooks',
      webhook_enabled: true,
      event_types: ['payment.status_changed', 'opco.status_changed'],
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    res = await api(c, 'PUT', '/webhooks/subscription', { event_types: [] });
    expect(res.json()).toMatchObject({ webhook_enabled: true, event_types: [] });
    res = await api(c, 'PUT', '/webhooks/subscription', { extra: 1 });
    expect(res.statusCode).toBe(422);
  });

  it('lists the subscribable event types', async () => {
    const c = await createTestClient(ctx, { role: 'operations' });
    const res = await api(c, 'GET', '/webhooks/events');
    expect(res.statusCode).toBe(200);
    expect(res.json().event_types).toEqual([...EVENT_TYPES]);
    expect(res.json().system_event_types).toEqual(['webhook.test']);
  });

  it('test event: 400 without webhook_url; delivered to the main webhook whatever the subscription', async () => {
    const c = await createTestClient(ctx);
    let res = await api(c, 'POST', '/webhooks/subscription/test');
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.webhookUrlRequiredForTest);
    // Subscribed to something else and switched off: the test still goes to the main URL only.
    await api(c, 'PUT', '/webhooks/subscription', {
      webhook_url: `${rx.url}/test-main`,
      event_types: ['kyc.status_changed'],
    });
    await api(c, 'POST', '/webhooks/destinations', { url: `${rx.url}/test-dest` });
    const secret = (await api(c, 'POST', '/webhooks/subscription/secret')).json().webhook_secret;
    res = await api(c, 'POST', '/webhooks/subscription/test');
    expect(res.statusCode).toBe(202);
    const eventId = res.json().event_id;
    await dispatcher.drain();
    const [req] = rx.on('/test-main');
    expect(rx.on('/test-dest')).toHaveLength(0);
    expect(signatureMatches(secret, req!)).toBe(true);
    const body = JSON.parse(req!.rawBody);
    expect(body).toMatchObject({ id: eventId, type: 'webhook.test', version: 'v1', client_id: c.clientId });
    expect(body.data).toEqual({ message: expect.any(String), requested_by_account_id: c.accountId });
    expect(req!.headers['x-svc-event-type']).toBe('webhook.test');
  });

  it('needs webhooks.write to change, webhooks.read to read', async () => {
    const ops = await createTestClient(ctx, { role: 'operations' });
    expect((await api(ops, 'GET', '/webhooks/subscription')).statusCode).toBe(200);
    expect((await api(ops, 'PUT', '/webhooks/subscription', { event_types: [] })).statusCode).toBe(403);
    expect((await api(ops, 'POST', '/webhooks/subscription/secret')).statusCode).toBe(403);
    expect(
      (await api(ops, 'POST', '/webhooks/destinations', { url: 'https://x.example.com' })).statusCode,
    ).toBe(403);
    const dev = await createTestClient(ctx, { role: 'developer' });
    expect(
      (await api(dev, 'POST', '/webhooks/destinations', { url: 'https://x.example.com' })).statusCode,
    ).toBe(201);
    const res = await ctx.app.inject({ url: '/api/v1/webhooks/deliveries' });
    expect(res.statusCode).toBe(401);
  });
});

describe('destinations', () => {
  it('creates, lists, updates, rotates and deletes; secret shown once; other clients get 404', async () => {
    const c = await createTestClient(ctx);
    const other = await createTestClient(ctx);
    let res = await api(c, 'POST', '/webhooks/destinations', {
      url: 'https://hooks.example.com/a',
      description: 'ERP',
      event_types: ['payment.status_changed'],
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/a',
      description: 'ERP',
      enabled: true,
      event_types: ['payment.status_changed'],
    });
    expect(created.secret).toMatch(/^whsec_/);
    const id = created.destination_id;
    await api(c, 'POST', '/webhooks/destinations', { url: 'https://hooks.example.com/b' });

    res = await api(c, 'GET', '/webhooks/destinations?limit=1&offset=0');
    expect(res.json()).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(res.json().destinations).toHaveLength(1);
    expect(JSON.stringify(res.json())).not.toContain('whsec_');
    expect((await api(c, 'GET', '/webhooks/destinations?limit=201')).statusCode).toBe(422);

    res = await api(c, 'PATCH', `/webhooks/destinations/${id}`, { enabled: false, event_types: [] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ destination_id: id, enabled: false, event_types: [] });
    expect(
      (await api(c, 'PATCH', `/webhooks/destinations/${id}`, { url: 'javascript:alert(1)' })).statusCode,
    ).toBe(422);
    expect((await api(other, 'PATCH', `/webhooks/destinations/${id}`, { enabled: true })).statusCode).toBe(
      404,
    );
    expect((await api(other, 'GET', `/webhooks/destinations/${id}`)).statusCode).toBe(404);
    expect((await api(other, 'DELETE', `/webhooks/destinations/${id}`)).statusCode).toBe(404);
    expect((await api(c, 'GET', '/webhooks/destinations/not-a-uuid')).statusCode).toBe(422);

    res = await api(c, 'POST', `/webhooks/destinations/${id}/secret`);
    expect(res.statusCode).toBe(200);
    expect(res.json().secret).not.toBe(created.secret);

    expect((await api(c, 'DELETE', `/webhooks/destinations/${id}`)).statusCode).toBe(204);
    expect((await api(c, 'GET', `/webhooks/destinations/${id}`)).statusCode).toBe(404);
    expect((await api(c, 'GET', '/webhooks/destinations')).json().total).toBe(1);
  });

  it('fans out by event type to the main webhook and each destination, each signed with its own secret', async () => {
    const c = await createTestClient(ctx);
    await api(c, 'PUT', '/webhooks/subscription', {
      webhook_url: `${rx.url}/f-main`,
      webhook_enabled: true,
      event_types: ['payment.status_changed'],
    });
    const mainSecret = (await api(c, 'POST', '/webhooks/subscription/secret')).json().webhook_secret;
    const a = (
      await api(c, 'POST', '/webhooks/destinations', {
        url: `${rx.url}/f-a`,
        event_types: ['opco.status_changed'],
      })
    ).json();
    const b = (await api(c, 'POST', '/webhooks/destinations', { url: `${rx.url}/f-b` })).json();
    const off = (
      await api(c, 'POST', '/webhooks/destinations', { url: `${rx.url}/f-off`, enabled: false })
    ).json();

    const pay = await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { p: 1 });
    const opco = await emitTestEvent(ctx, c.clientId, 'opco.status_changed', { o: 1 });
    const proj = await emitTestEvent(ctx, c.clientId, 'project.frozen_changed', { f: 1 });
    await dispatcher.drain();

    const ids = (path: string) => rx.on(path).map((r) => r.headers['x-svc-event-id']);
    expect(ids('/f-main')).toEqual([pay!.id]);
    expect(ids('/f-a')).toEqual([opco!.id]);
    expect(ids('/f-b').sort()).toEqual([pay!.id, opco!.id, proj!.id].sort());
    expect(ids('/f-off')).toEqual([]);
    expect(signatureMatches(mainSecret, rx.on('/f-main')[0]!)).toBe(true);
    expect(signatureMatches(a.secret, rx.on('/f-a')[0]!)).toBe(true);
    for (const r of rx.on('/f-b')) expect(signatureMatches(b.secret, r)).toBe(true);
    expect(signatureMatches(b.secret, rx.on('/f-a')[0]!)).toBe(false);
    void off;

    // Main webhook switched off: nothing more goes there.
    await api(c, 'PUT', '/webhooks/subscription', { webhook_enabled: false });
    await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { p: 2 });
    await dispatcher.drain();
    expect(ids('/f-main')).toHaveLength(1);
    expect(ids('/f-b')).toHaveLength(4);

    // History with filters and pagination, newest first.
    let res = await api(c, 'GET', '/webhooks/deliveries');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 6, limit: 50, offset: 0 });
    const first = res.json().deliveries[0];
    expect(first).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      last_response_status: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(Object.keys(first).sort()).toEqual(
      [
        'allowed_actions',
        'attempts',
        'created_at',
        'delivery_id',
        'destination_id',
        'event_id',
        'event_status',
        'event_type',
        'last_attempt_at',
        'last_error',
        'last_response_status',
        'next_attempt_at',
        'status',
        'url',
      ].sort(),
    );
    res = await api(c, 'GET', '/webhooks/deliveries?event_type=opco.status_changed');
    expect(res.json().total).toBe(2);
    res = await api(c, 'GET', `/webhooks/deliveries?destination_id=${a.destination_id}`);
    expect(res.json().deliveries.map((d: { event_id: string }) => d.event_id)).toEqual([opco!.id]);
    res = await api(c, 'GET', '/webhooks/deliveries?status=succeeded&limit=2&offset=5');
    expect(res.json()).toMatchObject({ total: 6, limit: 2, offset: 5 });
    expect(res.json().deliveries).toHaveLength(1);
    expect((await api(c, 'GET', '/webhooks/deliveries?limit=201')).statusCode).toBe(422);
    expect((await api(c, 'GET', '/webhooks/deliveries?status=bogus')).statusCode).toBe(422);

    // Deleting a destination closes what is still pending for it.
    rx.behaviour = (req) => ({ status: req.path === '/f-b' ? 500 : 200 });
    const late = await emitTestEvent(ctx, c.clientId, 'project.frozen_changed', { f: 2 });
    await dispatcher.drain();
    expect((await api(c, 'DELETE', `/webhooks/destinations/${b.destination_id}`)).statusCode).toBe(204);
    res = await api(c, 'GET', `/webhooks/deliveries?event_id=${late!.id}`);
    expect(res.json().deliveries[0]).toMatchObject({
      status: 'dead_letter',
      last_error: 'destination deleted',
    });
    const retry = await api(c, 'POST', `/webhooks/deliveries/${res.json().deliveries[0].delivery_id}/retry`);
    expect(retry.statusCode).toBe(409);
    rx.behaviour = () => ({ status: 200 });
  });

  it('deliveries and their attempts are client-scoped', async () => {
    const c = await createTestClient(ctx);
    const other = await createTestClient(ctx);
    await api(c, 'PUT', '/webhooks/subscription', { webhook_url: `${rx.url}/scoped`, webhook_enabled: true });
    const ev = await emitTestEvent(ctx, c.clientId, 'payment.status_changed');
    await dispatcher.drain();
    const d = (await api(c, 'GET', `/webhooks/deliveries?event_id=${ev!.id}`)).json().deliveries[0];
    expect((await api(other, 'GET', '/webhooks/deliveries')).json().total).toBe(0);
    expect((await api(other, 'GET', `/webhooks/deliveries/${d.delivery_id}/attempts`)).statusCode).toBe(404);
    expect((await api(other, 'POST', `/webhooks/deliveries/${d.delivery_id}/retry`)).statusCode).toBe(404);
    const att = await api(c, 'GET', `/webhooks/deliveries/${d.delivery_id}/attempts`);
    expect(att.json().attempts).toEqual([
      expect.objectContaining({ attempt: 1, response_status: 200, outcome: 'succeeded', error: null }),
    ]);
    // what the inspector shows: the body and headers sent (no signature), each attempt's timing
    expect(att.json().attempts[0]).toMatchObject({
      duration_ms: expect.any(Number),
      started_at: expect.any(String),
    });
    const one = (await api(c, 'GET', `/webhooks/deliveries/${d.delivery_id}`)).json();
    const received = rx.requests.find((r) => r.path === '/scoped')!;
    expect(one.payload).toEqual(JSON.parse(received.rawBody));
    expect(one.payload).toMatchObject({ id: ev!.id, type: 'payment.status_changed' });
    expect(one.request_headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'svc-webhooks/1',
      'x-svc-event-id': ev!.id,
      'x-svc-event-type': 'payment.status_changed',
      'x-svc-event-version': 'v1',
      'webhook-id': ev!.id,
    });
    for (const [name, value] of Object.entries(one.request_headers))
      expect(received.headers[name]).toBe(value);
    expect(JSON.stringify(one)).not.toContain(String(received.headers['x-svc-signature']));
  });
});

describe('metrics', () => {
  it('exposes the outbox backlog', async () => {
    const res = await ctx.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/webhook_deliveries_due \d+/);
    expect(res.body).toMatch(/webhook_deliveries_oldest_due_seconds [\d.]+/);
  });
});
