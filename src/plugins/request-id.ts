import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honour a well-formed incoming X-Request-Id, otherwise mint one. Used as Fastify's genReqId. */
export function genRequestId(req: IncomingMessage): string {
  const h = req.headers['x-request-id'];
  const v = Array.isArray(h) ? h[0] : h;
  return v && SAFE_ID.test(v) ? v : randomUUID();
}

/** Echo the request id on every response (a synchronous hook: no promise per request). */
export const requestIdPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('X-Request-Id', request.id);
      done();
    });
  },
  { name: 'request-id' },
);
