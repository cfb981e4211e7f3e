/** Request and response schemas of the notification routes (docs/guides/notifications.md). */
import { Type } from 'typebox';
import { ROLES } from '../auth/team/permissions.policy';
import { NOTIFICATION_CATEGORIES, NOTIFICATION_SEVERITIES } from './notify.service';

const uuid = Type.String({ format: 'uuid' });
const dateTime = Type.String({ format: 'date-time' });
const nullableDateTime = Type.Union([dateTime, Type.Null()]);
const Category = Type.Enum(NOTIFICATION_CATEGORIES);
const Severity = Type.Enum(NOTIFICATION_SEVERITIES);

export { ErrorSchema } from '../../shared/error-schema';

export const NotificationSchema = Type.Object({
  notification_id: uuid,
  category: Category,
  severity: Severity,
  title: Type.String(),
  body: Type.String(),
  link: Type.Union([
    Type.Object({
      resource_type: Type.String({ description: 'Kind of item: opco, invoice, ticket, webhook_delivery, …' }),
      resource_id: Type.String(),
      path: Type.String({
        description:
          "The item's page in the merchant dashboard, relative to the service's public URL (e.g. `/dashboard/opcos/{id}`)",
      }),
    }),
    Type.Null(),
  ]),
  created_at: dateTime,
  seen_at: nullableDateTime,
  read_at: nullableDateTime,
  archived_at: nullableDateTime,
});

export const ListNotificationsQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1, description: 'Page number, starting at 1' }),
    page_size: Type.Integer({
      minimum: 1,
      maximum: 200,
      default: 20,
      description: 'Items per page (default 20, maximum 200; above the maximum is 422)',
    }),
    read: Type.Optional(Type.Boolean({ description: 'true: read only; false: unread only' })),
    archived: Type.Boolean({ default: false, description: 'true: the archive; false: the inbox' }),
    category: Type.Optional(Category),
    severity: Type.Optional(Severity),
  },
  { additionalProperties: false },
);

export const NotificationListSchema = Type.Object({
  notifications: Type.Array(NotificationSchema),
  pagination: Type.Object({
    total: Type.Integer(),
    page: Type.Integer(),
    page_size: Type.Integer(),
    total_pages: Type.Integer(),
  }),
});

export const CountsSchema = Type.Object({
  unseen_count: Type.Integer({ description: 'In the inbox (not archived) and never seen' }),
  unread_count: Type.Integer({ description: 'In the inbox (not archived) and unread' }),
});

export const NotificationIdParams = Type.Object({ notification_id: uuid }, { additionalProperties: false });

export const PatchNotificationBody = Type.Object(
  {
    read: Type.Optional(
      Type.Boolean({ description: 'true sets read_at (and seen_at); false clears read_at' }),
    ),
    archived: Type.Optional(Type.Boolean({ description: 'Archiving leaves read_at unchanged' })),
  },
  { additionalProperties: false },
);

const before = Type.Optional(
  Type.String({
    format: 'date-time',
    description: 'Only notifications created before this instant (default: every one existing now)',
  }),
);
export const MarkSeenBody = Type.Object({ before }, { additionalProperties: false });
export const BulkBody = Type.Object(
  { category: Type.Optional(Category), before },
  { additionalProperties: false },
);
export const UpdatedSchema = Type.Object({ updated: Type.Integer() });

const channel = Type.Object(
  Object.fromEntries(NOTIFICATION_CATEGORIES.map((c) => [c, Type.Optional(Type.Boolean())])) as Record<
    (typeof NOTIFICATION_CATEGORIES)[number],
    ReturnType<typeof Type.Optional<ReturnType<typeof Type.Boolean>>>
  >,
  { additionalProperties: false },
);
export const PreferencesBody = Type.Object(
  {
    email: Type.Optional(channel),
    in_app: Type.Optional(channel),
  },
  { additionalProperties: false },
);
export type PreferencesInput = Type.Static<typeof PreferencesBody>;

export const PreferencesSchema = Type.Object({
  email: Type.Record(Type.String(), Type.Boolean(), {
    description: 'The categories with an explicit email choice: true always emails, false never does',
  }),
  in_app: Type.Record(Type.String(), Type.Boolean(), { description: 'Every category (default true)' }),
  email_by_severity: Type.Array(Type.String(), {
    description: 'Categories with no email choice: these send email for warning and critical only',
  }),
});

export const BroadcastBody = Type.Object(
  {
    client_id: Type.Optional(uuid),
    all_clients: Type.Optional(Type.Boolean()),
    roles: Type.Optional(Type.Array(Type.Enum(ROLES), { minItems: 1, maxItems: 3, uniqueItems: true })),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ minLength: 1, maxLength: 5000 }),
    severity: Severity,
    category: Type.Literal('system'),
  },
  { additionalProperties: false },
);
export type BroadcastInput = Type.Static<typeof BroadcastBody>;
export const BroadcastResultSchema = Type.Object({ recipients: Type.Integer() });
