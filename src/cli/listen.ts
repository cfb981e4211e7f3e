/**
 * `svc listen --forward-to URL`: reads the client's event stream (GET /webhooks/listen, Server-Sent
 * Events), prints each event and POSTs its body to the local URL signed like a real delivery
 * (X-SVC-* and Standard Webhooks headers, keyed with a signing secret made for this session and
 * printed at start), then prints the answer. Reconnects with Last-Event-ID after a dropped stream.
 */
import { newWebhookSecret } from '../outbox/delivery-store';
import { deliveryHeaders } from '../outbox/envelope';
import type { ApiSession } from './api-session';

export interface ListenOptions {
  session: ApiSession;
  forwardTo: string;
  /** Comma-separated event types (default: all). */
  events?: string;
  out: (line: string) => void;
  signal: AbortSignal;
  /** Forward request timeout (ms). */
  timeoutMs?: number;
}

export interface StreamMessage {
  id?: string;
  event?: string;
  data: string;
}

/** Splits SSE text into messages; returns the unfinished rest. */
export function parseSse(buffer: string): { messages: StreamMessage[]; rest: string } {
  const messages: StreamMessage[] = [];
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const m: StreamMessage = { data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') m.id = value;
      else if (field === 'event') m.event = value;
    }
    if (data.length > 0) {
      m.data = data.join('\n');
      messages.push(m);
    }
  }
  return { messages, rest };
}

const stamp = () => new Date().toISOString().replace('T', ' ').slice(0, 19);
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

async function forward(o: ListenOptions, secret: string, m: StreamMessage): Promise<void> {
  const id = m.id ?? '';
  const type = m.event ?? 'message';
  o.out(`${stamp()}  --> ${type} [${id}]`);
  try {
    const res = await fetch(o.forwardTo, {
      method: 'POST',
      headers: deliveryHeaders(secret, { id, type }, m.data, Math.floor(Date.now() / 1000)),
      body: m.data,
      redirect: 'manual',
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    });
    await res.body?.cancel();
    o.out(`${stamp()}  <-- [${res.status}] POST ${o.forwardTo}`);
  } catch (err) {
    const why =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    o.out(`${stamp()}  <-- [ERROR] POST ${o.forwardTo}: ${why}`);
  }
}

/** Runs until `signal` aborts. */
export async function listen(o: ListenOptions): Promise<void> {
  const secret = newWebhookSecret();
  const query = o.events ? `?event_types=${encodeURIComponent(o.events)}` : '';
  let lastEventId: string | undefined;
  let ready = false;
  let renew = false;
  while (!o.signal.aborted) {
    try {
      const res = await fetch(`${o.session.apiUrl}/webhooks/listen${query}`, {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${await o.session.token(renew)}`,
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal: o.signal,
      });
      if (res.status === 401 && !renew) {
        renew = true;
        continue;
      }
      renew = false;
      if (!res.ok || !res.body)
        throw new Error(`GET /webhooks/listen answered ${res.status}: ${await res.text()}`);
      if (!ready) {
        o.out(`Ready! Your webhook signing secret is ${secret} (^C to quit)`);
        o.out(`Forwarding events to ${o.forwardTo}`);
        ready = true;
      }
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        const { messages, rest } = parseSse(buffer);
        buffer = rest;
        for (const m of messages) {
          await forward(o, secret, m);
          if (m.id) lastEventId = m.id;
        }
      }
    } catch (err) {
      if (o.signal.aborted) break;
      // A 4xx other than 401 (permission, validation) will not get better by retrying.
      if (err instanceof Error && / answered 4\d\d/.test(err.message)) throw err;
      process.stderr.write(`listen: ${err instanceof Error ? err.message : String(err)}; reconnecting\n`);
    }
    await sleep(1000, o.signal);
  }
}
