/**
 * GET /favicon.ico and /favicon.svg: the icon of the hosted pages, the docs and the dashboard (and of
 * any page a browser opens on this host, since browsers ask for /favicon.ico on their own). Cached
 * for a day and revalidated by ETag, so a new icon reaches browsers within a day.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps';
import { favicons, type Icon } from './favicon.view';

const CACHE = 'public, max-age=86400, stale-while-revalidate=604800';

function sendIcon(request: FastifyRequest, reply: FastifyReply, icon: Icon) {
  reply
    .header('cache-control', CACHE)
    .header('etag', icon.etag)
    .header('x-content-type-options', 'nosniff')
    // An SVG opened on its own is a document: no script, nothing fetched.
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
  if (request.headers['if-none-match'] === icon.etag) return reply.status(304).send();
  return reply.header('content-type', icon.type).send(icon.body);
}

export async function faviconRoutes(app: FastifyInstance, _opts: { deps: Deps }) {
  const options = { config: { auth: 'public' }, schema: { hide: true } } as const;
  app.get('/favicon.ico', options, (request, reply) => sendIcon(request, reply, favicons().ico));
  app.get('/favicon.svg', options, (request, reply) => sendIcon(request, reply, favicons().svg));
}
