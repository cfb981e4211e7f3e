/**
 * GET /webhooks/listen over real HTTP (the app listening on a port): events committed after the
 * stream opened arrive as SSE messages carrying the delivery body, filtered by event_types;
 * Last-Event-ID resumes after an event; no `Accept: text/event-stream` is 406, an unknown type 422.
 */
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseSse, type StreamMessage } from '../../src/cli/listen';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { freePort } from '../helpers/process';
import { emitTestEvent } from '../helpers/webhooks';

let ctx: TestContext;
let baseUrl: string;
let caller: TestCaller;
let other: TestCaller;
const agent = new Agent();

beforeAll(async () => {
  ctx = await createTestApp();
  const port = await freePort();
  await ctx.app.listen({ port, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${port}/api/v1`;
  caller = await createTestClient(ctx, { role: 'developer', apiToken: true });
  other = await createTestClient(ctx, { role: 'owner' });
}, 180_000);
afterAll(async () => {
  // The test's own kept-alive client sockets, or closing the app waits for them to time out.
  await agent.destroy();
  await ctx?.close();
});

/** Opens the stream and collects messages until `until` is satisfied. */
async function openStream(query = '', lastEventId?: string) {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/webhooks/listen${query}`, {
    headers: {
      ...caller.headers,
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal: controller.signal,
    dispatcher: agent,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const messages: StreamMessage[] = [];
  let opened!: () => void;
  const ready = new Promise<void>((r) => {
    opened = r;
  });
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        if (buffer.includes(': listening')) opened();
        const parsed = parseSse(buffer);
        buffer = parsed.rest;
        messages.push(...parsed.messages);
      }
    } catch {
      // aborted
    }
  })();
  await ready;
  const waitFor = async (n: number) => {
    for (let i = 0; i < 200 && messages.length < n; i++) await new Promise((r) => setTimeout(r, 50));
    expect(messages.length).toBeGreaterThanOrEqual(n);
  };
  return {
    messages,
    waitFor,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

it('streams events committed after it opened, with the delivery body, filtered and resumable', async () => {
  await emitTestEvent(ctx, caller.clientId, 'payment.status_changed', { n: 0 });
  const all = await openStream();
  const onlyKyc = await openStream('?event_types=kyc.status_changed');
  const a = await emitTestEvent(ctx, caller.clientId, 'payment.status_changed', { n: 1 });
  const b = await emitTestEvent(ctx, caller.clientId, 'kyc.status_changed', { n: 2 });
  await emitTestEvent(ctx, other.clientId, 'payment.status_changed', { n: 3 });
  await all.waitFor(2);
  await onlyKyc.waitFor(1);
  await new Promise((r) => setTimeout(r, 1200));
  expect(all.messages.map((m) => [m.id, m.event])).toEqual([
    [a!.id, 'payment.status_changed'],
    [b!.id, 'kyc.status_changed'],
  ]);
  expect(onlyKyc.messages.map((m) => m.id)).toEqual([b!.id]);
  const envelope = JSON.parse(all.messages[0]!.data);
  expect(envelope).toMatchObject({
    id: a!.id,
    type: 'payment.status_changed',
    version: 'v1',
    client_id: caller.clientId,
    data: { n: 1 },
  });
  await all.close();
  await onlyKyc.close();

  // Resume after `a`: `b` and what came since, nothing before.
  const c = await emitTestEvent(ctx, caller.clientId, 'opco.status_changed', { n: 4 });
  const resumed = await openStream('', a!.id);
  await resumed.waitFor(2);
  expect(resumed.messages.map((m) => m.id)).toEqual([b!.id, c!.id]);
  await resumed.close();
});

it('answers 406 without Accept: text/event-stream and 422 for an unknown event type', async () => {
  const plain = await fetch(`${baseUrl}/webhooks/listen`, { headers: caller.headers, dispatcher: agent });
  expect(plain.status).toBe(406);
  expect(((await plain.json()) as { detail: string }).detail).toMatch(/text\/event-stream/);
  const bad = await fetch(`${baseUrl}/webhooks/listen?event_types=payment.nope`, {
    headers: { ...caller.headers, accept: 'text/event-stream' },
    dispatcher: agent,
  });
  expect(bad.status).toBe(422);
  expect(((await bad.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual([
    'query',
    'event_types',
  ]);
  const anonymous = await fetch(`${baseUrl}/webhooks/listen`, {
    headers: { accept: 'text/event-stream' },
    dispatcher: agent,
  });
  expect(anonymous.status).toBe(401);
  await anonymous.body?.cancel();
});
