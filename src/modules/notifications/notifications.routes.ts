/**
 * Notifications: the caller's own inbox and preferences (dashboard token only: an API token is 403)
 * and the staff broadcast.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import {
  BroadcastBody,
  BroadcastResultSchema,
  BulkBody,
  CountsSchema,
  ErrorSchema,
  ListNotificationsQuery,
  MarkSeenBody,
  NotificationIdParams,
  NotificationListSchema,
  NotificationSchema,
  PatchNotificationBody,
  PreferencesBody,
  PreferencesSchema,
  UpdatedSchema,
} from './notifications.schemas';
import {
  bulkUpdate,
  getPreferences,
  listNotifications,
  type Member,
  notificationCounts,
  patchNotification,
  putPreferences,
} from './notifications.service';
import { broadcast } from './notifications-admin.service';

const tags = ['Notifications'];
const read = { permission: 'notifications.read' as const, dashboardOnly: true };
const write = { permission: 'notifications.write' as const, dashboardOnly: true };

function memberOf(req: FastifyRequest): Member {
  const auth = clientAuthOf(req);
  // dashboardOnly guarantees a team member's token.
  return { clientId: auth.clientId, accountId: auth.accountId! };
}

export async function notificationsRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // Bulk bodies are optional: an empty POST counts as `{}`.
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });

  r.get(
    '/notifications',
    {
      config: read,
      schema: {
        tags,
        summary: 'List my notifications',
        description: 'Newest first. `archived=false` (default) is the inbox, `true` the archive.',
        querystring: ListNotificationsQuery,
        response: { 200: NotificationListSchema },
      },
    },
    async (req) => listNotifications(deps, memberOf(req), toPageParams(req.query, 20), req.query),
  );

  r.get(
    '/notifications/counts',
    {
      config: read,
      schema: { tags, summary: 'Unseen and unread counts of my inbox', response: { 200: CountsSchema } },
    },
    async (req) => notificationCounts(deps, memberOf(req)),
  );

  r.get(
    '/notifications/preferences',
    {
      config: read,
      schema: { tags, summary: 'My notification preferences', response: { 200: PreferencesSchema } },
    },
    async (req) => getPreferences(deps, memberOf(req)),
  );

  r.put(
    '/notifications/preferences',
    {
      config: write,
      schema: {
        tags,
        summary: 'Replace my notification preferences',
        description:
          'Per channel and category. A category left out returns to its default: in-app on; email only for warning ' +
          'and critical. In-app `security` cannot be switched off (400).',
        body: PreferencesBody,
        response: { 200: PreferencesSchema, 400: ErrorSchema },
      },
    },
    async (req) => putPreferences(deps, memberOf(req), req.body),
  );

  r.patch(
    '/notifications/:notification_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Mark read/unread, archive/unarchive',
        description: 'Reading also marks seen. Archiving leaves read_at unchanged.',
        params: NotificationIdParams,
        body: PatchNotificationBody,
        response: { 200: NotificationSchema, 404: ErrorSchema },
      },
    },
    async (req) => patchNotification(deps, memberOf(req), req.params.notification_id, req.body),
  );

  const bulk = [
    ['mark-seen', 'mark_seen', MarkSeenBody, 'Mark every unseen notification seen'],
    ['mark-all-read', 'mark_all_read', BulkBody, 'Mark every unread notification read (and seen)'],
    ['archive-read', 'archive_read', BulkBody, 'Archive every read notification'],
  ] as const;
  for (const [path, kind, body, summary] of bulk) {
    r.post(
      `/notifications/${path}`,
      {
        config: write,
        schema: {
          tags,
          summary,
          description:
            '`before` (default: now) leaves anything created at or after it untouched, so an item arriving ' +
            'mid-click keeps its state. Answers how many changed.',
          body,
          response: { 200: UpdatedSchema },
        },
      },
      async (req) =>
        bulkUpdate(deps, memberOf(req), kind, req.body as { category?: string; before?: string }),
    );
  }

  r.post(
    '/admin/notifications',
    {
      config: { auth: 'staff' },
      schema: {
        tags: ['Admin (staff)'],
        summary: 'Broadcast a system notification',
        description:
          'To the active members of one client (`client_id`) or of every active client (`all_clients: true`), ' +
          'optionally only some `roles`. Email follows each member’s preferences.',
        body: BroadcastBody,
        response: { 201: BroadcastResultSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) => reply.code(201).send(await broadcast(deps, req.body)),
  );
}
