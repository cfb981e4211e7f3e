/**
 * A real local HTTP receiver for webhook tests (node:http on 127.0.0.1): records every request
 * with its raw body and answers with a programmable behaviour per request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  receivedAt: number;
  /** The sender's port: with `ss`, which process sent it (the cluster test's kill). */
  remotePort: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Destroy the socket without answering. */
  hangUp?: boolean;
}

export type Behaviour = (req: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  behaviour: Behaviour;
  /** Requests to a given path. */
  on(path: string): ReceivedRequest[];
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => ({ status: 200 })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const waiters: { n: number; resolve: () => void }[] = [];
  const receiver = { behaviour } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rec: ReceivedRequest = {
        path: req.url ?? '/',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        remotePort: req.socket.remotePort ?? 0,
      };
      const index = requests.length;
      requests.push(rec);
      for (const w of [...waiters]) if (requests.length >= w.n) w.resolve();
      const reply = await receiver.behaviour(rec, index);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.hangUp) {
        req.socket.destroy();
        return;
      }
      if (res.destroyed) return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? 'ok');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    on: (path: string) => requests.filter((r) => r.path === path),
    waitFor: (n: number, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (requests.length >= n) return resolve();
        const t = setTimeout(
          () => reject(new Error(`receiver got ${requests.length}/${n} requests`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
}
