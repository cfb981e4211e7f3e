import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { ts, updatedAt } from './columns';

/**
 * Failed staff logins per email (lower-cased), so the lockout holds across nodes and restarts.
 * A row exists only while there are recent failures or an active lock.
 */
export const staffLoginAttempts = pgTable('staff_login_attempts', {
  emailKey: text('email_key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  windowStartedAt: ts('window_started_at').notNull(),
  lockedUntil: ts('locked_until'),
  updatedAt: updatedAt(),
});
