import { sql } from 'drizzle-orm';
import { jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn } from './columns';

/** Client-defined verification levels (the built-in ones live in code: modules/kyc/levels.repo.ts). */
export const verificationLevels = pgTable(
  'verification_levels',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    /** kyc or kyb */
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    checks: jsonb('checks').$type<string[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('verification_levels_client_kind_name_uq').on(t.clientId, t.kind, sql`lower(${t.name})`),
  ],
);
