import { timestamp, uuid } from 'drizzle-orm/pg-core';
import { newId } from '../../shared/ids';

/** Shared column builders so every table spells ids and timestamps the same way. */
export const idColumn = (name: string) => uuid(name).primaryKey().$defaultFn(newId);
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => ts('created_at').notNull().defaultNow();
export const updatedAt = () => ts('updated_at').notNull().defaultNow();
