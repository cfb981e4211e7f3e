/** Request and response schemas of the webhook endpoints (they also generate the OpenAPI document). */
import { Type } from 'typebox';
import { EVENT_TYPES } from '../../outbox/event-types';
import { limitOffsetQuerySchema } from '../../shared/pagination';
import { DeliveryActionsSchema } from './webhooks.actions';

const Uuid = Type.String({ format: 'uuid' });
const DeliveryStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('retrying'),
  Type.Literal('succeeded'),
  Type.Literal('dead_letter'),
]);
const Iso = Type.String({ format: 'date-time' });
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 50,
  description: 'Subscribed event types (see GET /webhooks/events); empty or absent = all',
  examples: [['payment.status_changed', 'opco.status_changed']],
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Absolute http(s) URL',
  examples: ['https://merchant.example.com/webhooks'],
});

export const SubscriptionSchema = Type.Object({
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  webhook_enabled: Type.Boolean(),
  event_types: Type.Array(Type.String()),
  webhook_secret: Type.Optional(
    Type.String({
      description:
        'Only in the answer that first configures a webhook URL: the main signing secret, shown once. ' +
        'The whole `whsec_…` string is the HMAC-SHA256 key.',
    }),
  ),
});

export const UpdateSubscriptionBody = Type.Object(
  {
    event_types: Type.Optional(EventTypes),
    webhook_url: Type.Optional(
      Type.Union([Url, Type.Null()], { description: 'Main webhook URL; null removes it' }),
    ),
    webhook_enabled: Type.Optional(Type.Boolean({ description: 'Deliver events to the main webhook URL' })),
  },
  { additionalProperties: false },
);

export const SecretResponse = Type.Object({
  webhook_secret: Type.String({
    description:
      'Signing secret, shown once; a previous one stops signing at once. The whole `whsec_…` string is the HMAC-SHA256 key.',
  }),
});

export const TestEventResponse = Type.Object({
  event_id: Uuid,
  event_type: Type.Literal('webhook.test'),
  message: Type.String(),
});

export const EventTypesResponse = Type.Object({
  event_types: Type.Array(Type.String(), { examples: [[...EVENT_TYPES]] }),
  system_event_types: Type.Array(Type.String(), {
    description: 'Always delivered on test, whatever the subscription',
  }),
});

export const DestinationSchema = Type.Object({
  destination_id: Uuid,
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  event_types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  created_at: Iso,
  updated_at: Iso,
});

export const CreatedDestinationSchema = Type.Object({
  destination_id: Uuid,
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  event_types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  secret: Type.String({ description: 'Signing secret of this destination, shown once' }),
  created_at: Iso,
});

export const CreateDestinationBody = Type.Object(
  {
    url: Url,
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const UpdateDestinationBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const DestinationSecretResponse = Type.Object({ secret: Type.String() });

export const DestinationParams = Type.Object({ destination_id: Uuid });
export const DeliveryParams = Type.Object({ delivery_id: Uuid });

export const ListQuery = Type.Object(limitOffsetQuerySchema(50, 200));

export const DeliveriesQuery = Type.Object({
  ...limitOffsetQuerySchema(50, 200),
  status: Type.Optional(DeliveryStatus),
  event_type: Type.Optional(Type.String({ maxLength: 100 })),
  destination_id: Type.Optional(Uuid),
  event_id: Type.Optional(Uuid),
  transaction_id: Type.Optional(
    Type.String({ format: 'uuid', description: 'Only deliveries of the events of this payment' }),
  ),
});

export const DestinationListSchema = Type.Object({
  destinations: Type.Array(DestinationSchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const DeliverySchema = Type.Object({
  delivery_id: Uuid,
  event_id: Uuid,
  event_type: Type.String(),
  event_status: Type.Union([Type.String(), Type.Null()], {
    description:
      'The status the event announced (`data.current_payment_status`, `data.current_status` or ' +
      "`data.status`: e.g. `success` for a payment's `payment.status_changed`); null for an event " +
      'that carries no status',
  }),
  destination_id: Type.Union([Uuid, Type.Null()], { description: 'null for the main webhook_url' }),
  url: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  last_attempt_at: Type.Union([Iso, Type.Null()]),
  next_attempt_at: Type.Union([Iso, Type.Null()]),
  last_response_status: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Iso,
  allowed_actions: DeliveryActionsSchema,
});

/** One delivery as the inspector reads it: the list's fields plus what was sent. */
export const DeliveryDetailSchema = Type.Object({
  ...DeliverySchema.properties,
  payload: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The JSON body sent, byte-identical on every attempt (the event envelope)',
  }),
  request_headers: Type.Record(Type.String(), Type.String(), {
    description:
      'The headers every attempt sends; each attempt adds `x-svc-timestamp` and `x-svc-signature` ' +
      '(the signature is not shown)',
  }),
});

export const DeliveryListSchema = Type.Object({
  deliveries: Type.Array(DeliverySchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const AttemptSchema = Type.Object({
  attempt: Type.Integer(),
  url: Type.String(),
  started_at: Iso,
  duration_ms: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  response_body: Type.Union([Type.String(), Type.Null()], { description: 'First bytes of the response' }),
  error: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.String({ description: 'Delivery status after this attempt' }),
  next_attempt_at: Type.Union([Iso, Type.Null()]),
});

export const AttemptListSchema = Type.Object({ delivery_id: Uuid, attempts: Type.Array(AttemptSchema) });

export const ListenQuery = Type.Object(
  {
    event_types: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Comma-separated event types to stream (absent: every event of the client)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListenHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'Resume after this event (the `id` of the last message seen)',
    }),
  ),
});

export const ListenStream = Type.String({
  description:
    'Server-Sent Events: per event `id: <event id>`, `event: <type>`, `data: <the webhook delivery body>`; ' +
    'comment lines (`: keep-alive`) keep the connection open',
});
