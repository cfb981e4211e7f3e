import { desc, sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';

/**
 * The activity log (docs/guides/activity-logs.md): one row per successful write, failed login or
 * denied permission, written in the change's transaction. Append-only: a database trigger
 * (migration activity_logs_append_only) refuses UPDATE and DELETE except for the retention job.
 */
export const activityLogs = pgTable(
  'activity_logs',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    occurredAt: ts('occurred_at').notNull(),
    /** `<resource>.<verb>`, e.g. payment_link.created */
    action: text('action').notNull(),
    /** success, failure */
    outcome: text('outcome').notNull().default('success'),
    /** client_user, client_api, service_internal, system */
    actorType: text('actor_type').notNull(),
    actorAccountId: uuid('actor_account_id'),
    actorEmail: text('actor_email'),
    actorCredentialId: uuid('actor_credential_id'),
    actorCredentialLabel: text('actor_credential_label'),
    targetType: text('target_type'),
    targetId: text('target_id'),
    targetLabel: text('target_label'),
    requestId: text('request_id'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    method: text('method'),
    path: text('path'),
    /** {field: {from, to}}; secrets, OTPs and tokens are stored as "[redacted]". */
    changes: jsonb('changes').$type<Record<string, { from: unknown; to: unknown }>>(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
  },
  (t) => [
    index('activity_logs_client_occurred_idx').on(t.clientId, desc(t.occurredAt), desc(t.id)),
    index('activity_logs_client_action_idx').on(t.clientId, t.action, desc(t.occurredAt)),
    index('activity_logs_client_target_idx').on(t.clientId, t.targetType, t.targetId, desc(t.occurredAt)),
    index('activity_logs_client_actor_idx').on(t.clientId, t.actorAccountId, desc(t.occurredAt)),
    index('activity_logs_occurred_idx').on(t.occurredAt),
  ],
);
