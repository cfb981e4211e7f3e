import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * Failure counters and lockouts keyed by subject (`login-email:<email>`, `login-ip:<ip>`,
 * `verify-resend:<email>`). In the database so every API node sees the same counts.
 */
export const authThrottles = pgTable('auth_throttles', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  windowStartedAt: ts('window_started_at').notNull(),
  lockedUntil: ts('locked_until'),
  updatedAt: ts('updated_at').notNull(),
});
