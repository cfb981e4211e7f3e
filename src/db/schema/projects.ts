import { desc, sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { opcos } from './opcos';

export const projects = pgTable(
  'projects',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    projectName: text('project_name').notNull(),
    opcoId: uuid('opco_id').references(() => opcos.id),
    isFrozen: boolean('is_frozen').notNull().default(false),
    frozenReason: text('frozen_reason'),
    archivedAt: ts('archived_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('projects_client_created_idx').on(t.clientId, desc(t.createdAt)),
    index('projects_client_name_search_idx').on(t.clientId, sql`lower(${t.projectName}) text_pattern_ops`),
    index('projects_opco_idx').on(t.opcoId),
  ],
);
