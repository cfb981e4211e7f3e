/**
 * Counts requests whose handlers are still running, including those whose client already
 * disconnected (Fastify's close() resolves once sockets are gone, not when handlers finish).
 * Shutdown drains this before closing the database.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    inflight: {
      count(): number;
      drain(timeoutMs: number): Promise<boolean>;
      /** Shutdown's first phase: readiness answers 503 and every response closes its connection. */
      startDraining(): void;
      readonly draining: boolean;
    };
  }
  interface FastifyRequest {
    inflightCounted: boolean;
    inflightDone: boolean;
    inflightHandlerStarted: boolean;
  }
}

export const inflightPlugin = fp(
  async (app: FastifyInstance) => {
    let count = 0;
    let draining = false;
    // A request answered before this plugin's onRequest hook (the 503 while closing) was never counted.
    const finish = (request: { inflightDone: boolean; inflightCounted: boolean }) => {
      if (request.inflightDone || !request.inflightCounted) return;
      request.inflightDone = true;
      count--;
    };
    app.decorateRequest('inflightCounted', false);
    app.decorateRequest('inflightDone', false);
    app.decorateRequest('inflightHandlerStarted', false);
    // Synchronous hooks (callback style): no promise per hook and request on the hot paths.
    app.addHook('onRequest', (request, _reply, done) => {
      request.inflightCounted = true;
      count++;
      done();
    });
    // A handler that ran to completion always sends (even to a closed socket), so onSend marks the end.
    app.addHook('onSend', (request, reply, payload, done) => {
      // While draining, a keep-alive connection would keep bringing requests to a node about to
      // close: the load balancer opens the next one to a ready node instead.
      if (draining) reply.header('connection', 'close');
      finish(request);
      done(null, payload);
    });
    app.addHook('preHandler', (request, _reply, done) => {
      request.inflightHandlerStarted = true;
      done();
    });
    // A client that aborts before its handler started leaves nothing running.
    app.addHook('onRequestAbort', (request, done) => {
      if (!request.inflightHandlerStarted) finish(request);
      done();
    });
    // Requests that ended without sending (aborted before a reply) end here.
    app.addHook('onResponse', (request, _reply, done) => {
      finish(request);
      done();
    });
    app.decorate('inflight', {
      count: () => count,
      startDraining() {
        draining = true;
      },
      get draining() {
        return draining;
      },
      async drain(timeoutMs: number) {
        const deadline = Date.now() + timeoutMs;
        while (count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        return count <= 0;
      },
    });
  },
  { name: 'inflight' },
);
