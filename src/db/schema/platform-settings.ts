import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { updatedAt } from './columns';

/** Platform-wide switches staff can change at run time (one row, id 'global'). Null = use the env default. */
export const platformSettings = pgTable('platform_settings', {
  id: text('id').primaryKey().default('global'),
  registrationEnabled: boolean('registration_enabled'),
  updatedAt: updatedAt(),
});
