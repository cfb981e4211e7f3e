import { customType, timestamp, uuid } from 'drizzle-orm/pg-core';
import { newId } from '../../shared/ids';

/** Shared column builders so every table spells ids and timestamps the same way. */
export const idColumn = (name: string) => uuid(name).primaryKey().$defaultFn(newId);
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => ts('created_at').notNull().defaultNow();
export const updatedAt = () => ts('updated_at').notNull().defaultNow();

/** Binary content (bytea); both drivers hand back a Buffer. */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});
