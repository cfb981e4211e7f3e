/**
 * What every signed inbound provider route needs: the exact request bytes (signatures are over the
 * raw body) and, for the sandbox simulators, a way to deliver through the very same route.
 */
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
}

/** Keeps the raw JSON body on `request.rawBody` (scoped to the calling plugin). Unparseable JSON becomes `{}`; the signature check rejects it first. */
export function keepRawJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, body === '' ? {} : JSON.parse(body as string));
    } catch {
      done(null, {});
    }
  });
}

/** A simulator's delivery function: posts a signed notification to `url` in-process, through routing, hooks and validation. */
export function deliverThroughRoute(app: FastifyInstance, url: string) {
  return async (rawBody: string, headers: Record<string, string>) => {
    const res = await app.inject({ method: 'POST', url, payload: rawBody, headers });
    return { statusCode: res.statusCode, body: res.body };
  };
}
