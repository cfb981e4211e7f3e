/**
 * The current request, reachable from service code without threading it through every call:
 * the activity log reads the actor (client token or staff) and the request facts from here.
 * Outside a request (workers, CLI) there is no context and the actor is `system`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const storage = new AsyncLocalStorage<FastifyRequest>();

export function currentRequest(): FastifyRequest | undefined {
  return storage.getStore();
}

/** Runs `fn` as if outside any request (e.g. work a request hands to the background). */
export function outsideRequest<T>(fn: () => T): T {
  return storage.exit(fn);
}

export const requestContextPlugin = fp(
  async (app: FastifyInstance) => {
    // Callback style so that every later hook and the handler continue inside `run`.
    app.addHook('onRequest', (request, _reply, done) => {
      storage.run(request, done);
    });
  },
  { name: 'request-context' },
);
