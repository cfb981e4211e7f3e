import { desc, sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/**
 * A team member's notification (docs/guides/notifications.md), fanned out in the transaction of the
 * change that caused it: one row per target account. `in_app` false means the member turned the
 * in-app channel off for the category and the row exists only to carry the email.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    category: text('category').notNull(),
    /** info, warning, critical */
    severity: text('severity').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /** {resource_type, resource_id, path} or null */
    link: jsonb('link').$type<{ resource_type: string; resource_id: string; path: string } | null>(),
    inApp: boolean('in_app').notNull().default(true),
    /** none, pending, sent, failed: the email channel, sent by the notification email worker. */
    emailState: text('email_state').notNull().default('none'),
    emailAttempts: integer('email_attempts').notNull().default(0),
    createdAt: createdAt(),
    seenAt: ts('seen_at'),
    readAt: ts('read_at'),
    archivedAt: ts('archived_at'),
  },
  (t) => [
    index('notifications_account_created_idx')
      .on(t.accountId, desc(t.createdAt), desc(t.id))
      .where(sql`in_app`),
    index('notifications_retention_idx').on(t.createdAt),
  ],
);

/** Per-member channel switches by category; absent keys take the defaults (in-app on; email for warning/critical). */
export const notificationPreferences = pgTable('notification_preferences', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  clientId: uuid('client_id')
    .notNull()
    .references(() => clients.id),
  email: jsonb('email').$type<Record<string, boolean>>().notNull().default(sql`'{}'::jsonb`),
  inApp: jsonb('in_app').$type<Record<string, boolean>>().notNull().default(sql`'{}'::jsonb`),
  updatedAt: updatedAt(),
});
