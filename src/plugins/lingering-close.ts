/**
 * Lingering close (as nginx's `lingering_close`): when the service answers before the request body
 * has all arrived (413 for a body over the limit, a body it cannot parse) it closes the connection,
 * since the rest of the body cannot be trusted to be framed. Closing a socket that still has unread
 * input makes the kernel send a reset, and a client that writes its whole body before reading (most
 * HTTP libraries, chunked or not) then loses the answer: the connection looks dropped. So the socket
 * first sends the answer and its FIN, keeps reading and discarding what the client still sends, and
 * is destroyed once the client closes its side, after `idleMs` without input, or after `maxMs`.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const LINGER = { idleMs: 5_000, maxMs: 30_000 };

/**
 * Replaces the socket's `destroySoon` (what Node's HTTP server calls after a closing answer) and
 * drains the request: its body is read off the wire and dropped, not buffered.
 */
export function lingerBeforeClose(request: IncomingMessage, limits = LINGER): void {
  const socket = request.socket;
  const lingering = socket as Socket & { destroySoon?: () => void; lingering?: boolean };
  if (lingering.lingering || socket.destroyed) return;
  lingering.lingering = true;
  let closing = false;
  lingering.destroySoon = () => {
    if (closing) return;
    closing = true;
    // Never before the answer is flushed: destroy() drops pending writes.
    const destroy = () =>
      socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy());
    const idle = setTimeout(destroy, limits.idleMs);
    const cap = setTimeout(destroy, limits.maxMs);
    idle.unref();
    cap.unref();
    const onData = () => idle.refresh();
    // Node's HTTP parser reads the socket's handle itself: the input shows as request body data.
    request.on('data', onData);
    request.once('end', destroy);
    socket.once('end', destroy);
    socket.once('close', () => {
      clearTimeout(idle);
      clearTimeout(cap);
      request.off('data', onData);
    });
    socket.end();
  };
  request.resume();
}

export const lingeringClosePlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!request.raw.complete && String(reply.getHeader('connection')).toLowerCase() === 'close') {
        lingerBeforeClose(request.raw);
      }
      done(null, payload);
    });
  },
  { name: 'lingering-close' },
);
