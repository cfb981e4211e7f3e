/** GET /webhooks/listen: the client's events as a Server-Sent Events stream (`svc listen`). */
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import { AppError } from '../../shared/errors';
import { LATE_WINDOW_MS, parseEventTypes, streamClientEvents } from './listen.service';
import * as S from './webhooks.schemas';

export const EVENT_STREAM_REQUIRED = 'This route streams Server-Sent Events: send Accept: text/event-stream';

export async function webhookListenRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const open = new Map<AbortController, () => void>();
  // Streams never end on their own: end them and drop their connections (clients reconnect with
  // Last-Event-ID, to another node) so closing does not wait for kept-alive sockets.
  app.addHook('preClose', async () => {
    for (const [c, drop] of open) {
      c.abort();
      drop();
    }
  });

  r.get(
    '/webhooks/listen',
    {
      config: { permission: 'webhooks.read', errors: [406] },
      schema: {
        tags: ['webhooks'],
        summary: "Stream the client's events as they happen (Server-Sent Events)",
        description:
          'For local development (`svc listen --forward-to URL`) and dashboards: every event of the client ' +
          '(or of `event_types`) committed after the stream opened, as `text/event-stream` messages whose ' +
          '`data` is the exact webhook delivery body. Independent of the webhook URL, subscriptions and ' +
          'deliveries. Reconnect with `Last-Event-ID` to resume after an event. An event whose transaction ' +
          `committed late (up to ${LATE_WINDOW_MS / 1000} s) can follow newer ones; deduplicate on \`id\`. ` +
          'Requires `Accept: text/event-stream` (406 otherwise).',
        querystring: S.ListenQuery,
        headers: S.ListenHeaders,
        response: {
          200: {
            description: 'The event stream',
            content: { 'text/event-stream': { schema: S.ListenStream } },
          },
        },
      },
    },
    async (req, reply) => {
      if (!(req.headers.accept ?? '').toLowerCase().includes('text/event-stream'))
        throw new AppError(406, EVENT_STREAM_REQUIRED);
      const types = parseEventTypes(req.query.event_types);
      const controller = new AbortController();
      open.set(controller, () => reply.raw.destroy());
      reply.raw.on('close', () => {
        controller.abort();
        open.delete(controller);
      });
      const stream = Readable.from(
        streamClientEvents(deps, clientAuthOf(req).clientId, {
          lastEventId: req.headers['last-event-id'],
          types,
          signal: controller.signal,
        }),
        { objectMode: false },
      );
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .send(stream as unknown as string);
    },
  );
}
