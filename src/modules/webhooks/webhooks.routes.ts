/** Webhook subscription, destinations, event types, delivery history and retries (client API). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { fixedDeliveryHeaders } from '../../outbox/envelope';
import { EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../../outbox/event-types';
import type { ActionViewer } from '../../platform/actions';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { deliveryActionsOf } from './webhooks.actions';
import type { AttemptRow, DeliveryRow, DestinationRow } from './webhooks.repo';
import * as S from './webhooks.schemas';
import * as svc from './webhooks.service';
import { registerWebhookMetrics } from './webhooks-metrics.service';

const tags = ['webhooks'];
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const subscriptionView = (r: {
  webhookUrl: string | null;
  webhookEnabled: boolean;
  webhookEventTypes: string[];
}) => ({
  webhook_url: r.webhookUrl,
  webhook_enabled: r.webhookEnabled,
  event_types: r.webhookEventTypes,
});

const destinationView = (d: DestinationRow) => ({
  destination_id: d.id,
  url: d.url,
  description: d.description,
  event_types: d.eventTypes,
  enabled: d.enabled,
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
});

/**
 * The status an event announced, read from the envelope the delivery sends (its body): the
 * payment's `current_payment_status`, another resource's `current_status`, or a plain `status`.
 */
function eventStatusOf(body: string): string | null {
  const data = (JSON.parse(body) as { data?: Record<string, unknown> }).data ?? {};
  const status = data.current_payment_status ?? data.current_status ?? data.status;
  return typeof status === 'string' ? status : null;
}

/** `viewer` at `now`: the caller's actions on the delivery. */
export const deliveryView = (
  d: DeliveryRow & { destinationGone?: boolean },
  viewer: ActionViewer,
  now: Date,
) => ({
  delivery_id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  event_status: eventStatusOf(d.body),
  destination_id: d.destinationId,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  last_attempt_at: iso(d.lastAttemptAt),
  next_attempt_at:
    d.status === 'pending' || d.status === 'retrying'
      ? (iso(d.nextAttemptAt) ?? d.createdAt.toISOString())
      : null,
  last_response_status: d.lastResponseStatus,
  last_error: d.lastError,
  created_at: d.createdAt.toISOString(),
  allowed_actions: deliveryActionsOf(d, viewer, now),
});

/** The inspector's view: what was sent, minus the per-attempt signature. */
export const deliveryDetailView = (
  d: DeliveryRow & { destinationGone?: boolean },
  viewer: ActionViewer,
  now: Date,
) => ({
  ...deliveryView(d, viewer, now),
  payload: JSON.parse(d.body) as Record<string, unknown>,
  request_headers: fixedDeliveryHeaders({ id: d.eventId, type: d.eventType }),
});

const attemptView = (a: AttemptRow) => ({
  attempt: a.attempt,
  url: a.url,
  started_at: a.startedAt.toISOString(),
  duration_ms: a.durationMs,
  response_status: a.responseStatus,
  response_body: a.responseBody,
  error: a.error,
  outcome: a.outcome,
  next_attempt_at: iso(a.nextAttemptAt),
});

export async function webhooksRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  if (app.metrics) registerWebhookMetrics(app.metrics, deps);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { permission: 'webhooks.read' as const };
  const write = { permission: 'webhooks.write' as const };
  const callerOf = (req: Parameters<typeof clientAuthOf>[0]) => {
    const auth = clientAuthOf(req);
    return { clientId: auth.clientId, viewer: actionViewer(deps, auth), now: deps.clock.now() };
  };

  r.get(
    '/webhooks/events',
    {
      config: read,
      schema: { tags, summary: 'Subscribable event types', response: { 200: S.EventTypesResponse } },
    },
    async () => ({ event_types: [...EVENT_TYPES], system_event_types: [...SYSTEM_EVENT_TYPES] }),
  );

  r.get(
    '/webhooks/subscription',
    {
      config: read,
      schema: {
        tags,
        summary: 'Main webhook URL, switch and subscribed event types',
        response: { 200: S.SubscriptionSchema },
      },
    },
    async (req) => subscriptionView(await svc.getSubscription(deps, clientAuthOf(req).clientId)),
  );

  r.put(
    '/webhooks/subscription',
    {
      config: write,
      schema: {
        tags,
        summary: 'Set the subscribed event types (and optionally the main webhook URL and switch)',
        description:
          'The canonical route for the main webhook (`PUT /auth/client/settings` sets the same URL and switch). ' +
          'event_types empty or absent = all event types. Enabling requires a webhook_url (400). In production the URL must resolve to a public address. ' +
          svc.WEBHOOK_SECRET_ONCE,
        body: S.UpdateSubscriptionBody,
        response: { 200: S.SubscriptionSchema },
      },
    },
    async (req) => {
      const clientId = clientAuthOf(req).clientId;
      const row = await svc.updateSubscription(deps, clientId, req.body);
      return { ...subscriptionView(row), ...(await svc.firstWebhookSecret(deps, clientId, row.webhookUrl)) };
    },
  );

  r.post(
    '/webhooks/subscription/secret',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Create or rotate the main webhook signing secret',
        description:
          'Creates the main signing secret when there is none yet, otherwise replaces it. Returns it once; ' +
          'deliveries are signed with it from now on. The whole `whsec_…` string is the HMAC-SHA256 key.',
        response: { 200: S.SecretResponse },
      },
    },
    async (req) => ({ webhook_secret: await svc.rotateWebhookSecret(deps, clientAuthOf(req).clientId) }),
  );

  r.post(
    '/webhooks/subscription/test',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Send a webhook.test event to the main webhook URL',
        description: 'Delivered whatever the subscription; 400 when no webhook_url is set.',
        response: { 202: S.TestEventResponse },
      },
    },
    async (req, reply) => {
      const auth = clientAuthOf(req);
      const event = await svc.sendTestEvent(deps, auth.clientId, auth.accountId);
      return reply
        .status(202)
        .send({ event_id: event.id, event_type: 'webhook.test' as const, message: svc.TEST_EVENT_MESSAGE });
    },
  );

  r.post(
    '/webhooks/destinations',
    {
      config: write,
      schema: {
        tags,
        summary: 'Add a webhook destination with its own secret and event types',
        body: S.CreateDestinationBody,
        response: { 201: S.CreatedDestinationSchema },
      },
    },
    async (req, reply) => {
      const { row, secret } = await svc.createDestination(deps, clientAuthOf(req).clientId, req.body);
      return reply.status(201).send({
        destination_id: row.id,
        url: row.url,
        description: row.description,
        event_types: row.eventTypes,
        enabled: row.enabled,
        secret,
        created_at: row.createdAt.toISOString(),
      });
    },
  );

  r.get(
    '/webhooks/destinations',
    {
      config: read,
      schema: {
        tags,
        summary: 'List webhook destinations (no secrets)',
        querystring: S.ListQuery,
        response: { 200: S.DestinationListSchema },
      },
    },
    async (req) => {
      const { limit = 50, offset = 0 } = req.query;
      const { rows, total } = await svc.listDestinations(deps, clientAuthOf(req).clientId, limit, offset);
      return { destinations: rows.map(destinationView), total, limit, offset };
    },
  );

  r.get(
    '/webhooks/destinations/:destination_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One webhook destination',
        params: S.DestinationParams,
        response: { 200: S.DestinationSchema },
      },
    },
    async (req) =>
      destinationView(await svc.getDestination(deps, clientAuthOf(req).clientId, req.params.destination_id)),
  );

  r.patch(
    '/webhooks/destinations/:destination_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change a destination (url, event_types, description, enabled)',
        params: S.DestinationParams,
        body: S.UpdateDestinationBody,
        response: { 200: S.DestinationSchema },
      },
    },
    async (req) =>
      destinationView(
        await svc.updateDestination(deps, clientAuthOf(req).clientId, req.params.destination_id, req.body),
      ),
  );

  r.delete(
    '/webhooks/destinations/:destination_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a destination',
        description: 'Its pending deliveries are closed as dead_letter; the history stays.',
        params: S.DestinationParams,
        response: { 204: Type.Null() },
      },
    },
    async (req, reply) => {
      await svc.deleteDestination(deps, clientAuthOf(req).clientId, req.params.destination_id);
      return reply.status(204).send(null);
    },
  );

  r.post(
    '/webhooks/destinations/:destination_id/secret',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Rotate the signing secret of a destination',
        params: S.DestinationParams,
        response: { 200: S.DestinationSecretResponse },
      },
    },
    async (req) => ({
      secret: await svc.rotateDestinationSecret(deps, clientAuthOf(req).clientId, req.params.destination_id),
    }),
  );

  r.get(
    '/webhooks/deliveries',
    {
      config: read,
      schema: {
        tags,
        summary: 'Delivery history, newest first (including dead_letter)',
        querystring: S.DeliveriesQuery,
        response: { 200: S.DeliveryListSchema },
      },
    },
    async (req) => {
      const {
        limit = 50,
        offset = 0,
        status,
        event_type,
        destination_id,
        event_id,
        transaction_id,
      } = req.query;
      const { clientId, viewer, now } = callerOf(req);
      const { rows, total } = await svc.listDeliveries(
        deps,
        clientId,
        {
          status,
          eventType: event_type,
          destinationId: destination_id,
          eventId: event_id,
          transactionId: transaction_id,
        },
        limit,
        offset,
      );
      return { deliveries: rows.map((d) => deliveryView(d, viewer, now)), total, limit, offset };
    },
  );

  r.get(
    '/webhooks/deliveries/:delivery_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One delivery',
        description: 'The delivery a `webhooks` notification links to; its attempts are at `/attempts`.',
        params: S.DeliveryParams,
        response: { 200: S.DeliveryDetailSchema },
      },
    },
    async (req) => {
      const { clientId, viewer, now } = callerOf(req);
      return deliveryDetailView(await svc.getDelivery(deps, clientId, req.params.delivery_id), viewer, now);
    },
  );

  r.get(
    '/webhooks/deliveries/:delivery_id/attempts',
    {
      config: read,
      schema: {
        tags,
        summary: 'Per-attempt history of a delivery',
        params: S.DeliveryParams,
        response: { 200: S.AttemptListSchema },
      },
    },
    async (req) => {
      const rows = await svc.listAttempts(deps, clientAuthOf(req).clientId, req.params.delivery_id);
      return { delivery_id: req.params.delivery_id, attempts: rows.map(attemptView) };
    },
  );

  r.post(
    '/webhooks/deliveries/:delivery_id/retry',
    {
      config: { ...write, bodyless: true, errors: [409] },
      schema: {
        tags,
        summary: 'Redeliver now (also from dead_letter)',
        description: 'A finished delivery gets a fresh budget of attempts; the attempt history is kept.',
        params: S.DeliveryParams,
        response: { 200: S.DeliveryDetailSchema },
      },
    },
    async (req) => {
      const { clientId, viewer, now } = callerOf(req);
      return deliveryDetailView(await svc.retryDelivery(deps, clientId, req.params.delivery_id), viewer, now);
    },
  );
}
