/**
 * The live event stream behind GET /webhooks/listen (used by `svc listen`): the client's events as
 * Server-Sent Events, read from the outbox table, so it works on both engines and on every node
 * whatever node wrote the event. Each event is sent once per stream as
 * `id: <event id>`, `event: <type>`, `data: <the delivery body>` (the same compact JSON a webhook
 * delivery carries). A reconnect with `Last-Event-ID` resumes after that event.
 *
 * created_at is stamped when the writing transaction starts, so an event can become visible after
 * a later-stamped one was streamed: each poll also rereads the last LATE_WINDOW_MS before the cursor
 * and sends what it has not sent yet (receivers deduplicate on the id, as for webhooks).
 */
import type { Deps } from '../../deps';
import { buildEnvelopeBody } from '../../outbox/envelope';
import { EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../../outbox/event-types';
import { invalidField } from '../../shared/errors';
import {
  databaseNow,
  eventOfClient,
  eventsAfter,
  eventsBetween,
  type StreamCursor,
  type StreamEventRow,
} from './listen.repo';

export const LATE_WINDOW_MS = 60_000;
const PAGE = 200;
const LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
const KNOWN_TYPES = [...EVENT_TYPES, ...SYSTEM_EVENT_TYPES];

export interface ListenOptions {
  lastEventId?: string;
  types: readonly string[] | null;
  signal: AbortSignal;
  /** How often the outbox is read (default 500 ms). */
  pollMs?: number;
  /** A comment line after this much silence keeps proxies from closing the stream (default 15 s). */
  keepAliveMs?: number;
}

/** `event_types` query: comma-separated event types (422 for an unknown one); absent = all. */
export function parseEventTypes(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const types = [...new Set(raw.split(',').map((t) => t.trim()))].filter(Boolean);
  for (const t of types)
    if (!(KNOWN_TYPES as readonly string[]).includes(t))
      throw invalidField(['query', 'event_types'], `Unknown event type: ${t}`);
  return types;
}

const sseMessage = (e: StreamEventRow): string =>
  `id: ${e.id}\nevent: ${e.type}\ndata: ${buildEnvelopeBody({
    id: e.id,
    type: e.type,
    occurredAt: e.occurredAt,
    clientId: e.clientId,
    data: e.data,
  })}\n\n`;

const after = (a: StreamCursor, b: StreamCursor) =>
  a.createdAt.getTime() > b.createdAt.getTime() ||
  (a.createdAt.getTime() === b.createdAt.getTime() && a.id > b.id);

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Where a stream starts, and the events counted as already sent. */
async function startingPoint(
  deps: Deps,
  clientId: string,
  opts: ListenOptions,
): Promise<{ cursor: StreamCursor; seen: Map<string, number> }> {
  const resumed = opts.lastEventId ? await eventOfClient(deps.db, clientId, opts.lastEventId) : null;
  const cursor: StreamCursor = resumed
    ? { createdAt: resumed.createdAt, id: resumed.id }
    : { createdAt: await databaseNow(deps.db), id: LAST_ID };
  const seen = new Map<string, number>();
  const window = new Date(cursor.createdAt.getTime() - LATE_WINDOW_MS);
  for (const e of await eventsBetween(deps.db, clientId, window, cursor.createdAt, opts.types, 10_000))
    if (!after(e, cursor)) seen.set(e.id, e.createdAt.getTime());
  return { cursor, seen };
}

/** The SSE text of the stream, until `signal` aborts. */
export async function* streamClientEvents(
  deps: Deps,
  clientId: string,
  opts: ListenOptions,
): AsyncGenerator<string, void, undefined> {
  const pollMs = opts.pollMs ?? 500;
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  const start = await startingPoint(deps, clientId, opts);
  const seen = start.seen;
  let cursor = start.cursor;
  yield `retry: 2000\n: listening\n\n`;
  let lastWrite = Date.now();
  while (!opts.signal.aborted) {
    const fresh: StreamEventRow[] = [];
    for (;;) {
      const rows = await eventsAfter(deps.db, clientId, cursor, opts.types, PAGE);
      const unseen = rows.filter((r) => !seen.has(r.id));
      for (const r of unseen) seen.set(r.id, r.createdAt.getTime());
      fresh.push(...unseen);
      if (rows.length > 0 && after(rows.at(-1)!, cursor))
        cursor = { createdAt: rows.at(-1)!.createdAt, id: rows.at(-1)!.id };
      if (rows.length < PAGE || unseen.length === 0) break;
    }
    const windowStart = cursor.createdAt.getTime() - LATE_WINDOW_MS;
    const late = (
      await eventsBetween(deps.db, clientId, new Date(windowStart), cursor.createdAt, opts.types, 1000)
    )
      .filter((r) => !seen.has(r.id))
      .reverse();
    for (const r of late) seen.set(r.id, r.createdAt.getTime());
    for (const e of [...late, ...fresh]) {
      if (opts.signal.aborted) return;
      yield sseMessage(e);
      lastWrite = Date.now();
    }
    for (const [id, at] of seen) if (at < windowStart) seen.delete(id);
    if (Date.now() - lastWrite >= keepAliveMs) {
      yield ': keep-alive\n\n';
      lastWrite = Date.now();
    }
    await pause(pollMs, opts.signal);
  }
}
