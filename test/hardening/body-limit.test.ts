/**
 * A body over the limit is a 413 `{detail}` over a real socket whether its length is announced
 * (Content-Length) or not (Transfer-Encoding: chunked), also for a client that writes its whole
 * body before it reads (most HTTP libraries do): the service reads and discards the rest before it
 * closes, so the answer is never lost to a connection reset.
 */

import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { paymentApp } from '../helpers/suites';
import { newKey } from '../payments/fixtures';

const s = paymentApp();
let port: number;
beforeAll(async () => {
  await s.ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (s.ctx.app.server.address() as AddressInfo).port;
});

const TEN_MB = 10 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

/**
 * Writes a 10 MB POST without reading (the socket is paused), then reads whatever the service
 * answered. Resolves with the raw answer and whether a write failed.
 */
function postBigThenRead(chunked: boolean): Promise<{ answer: string; writeError: string | null }> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.pause();
    let writeError: string | null = null;
    let answer = '';
    const finish = () => resolve({ answer, writeError });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      writeError ??= e.code ?? e.message;
    });
    socket.on('close', finish);
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    const head = [
      'POST /api/v1/checkout/paylink HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: ${s.w.caller.headers.authorization}`,
      'Content-Type: application/json',
      `X-Idempotency-Key: ${newKey()}`,
      chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${TEN_MB}`,
    ].join('\r\n');
    const frame = chunked
      ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')])
      : CHUNK;
    let sent = 0;
    const pump = () => {
      while (sent < TEN_MB) {
        if (socket.destroyed) return;
        sent += CHUNK.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
      if (chunked) socket.write('0\r\n\r\n');
      // Everything is written: now read the answer.
      socket.resume();
    };
    socket.write(`${head}\r\n\r\n`, pump);
  });
}

describe('request body over the limit', () => {
  for (const chunked of [false, true])
    it(`is answered 413 {detail} before the close (${chunked ? 'chunked' : 'Content-Length'})`, async () => {
      const { answer, writeError } = await postBigThenRead(chunked);
      expect(writeError).toBeNull();
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      expect(JSON.parse(body)).toEqual({ detail: 'Request body is too large' });
    });
});
