import { desc, sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { staffAccounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export interface TicketReference {
  type: string;
  id: string;
}

export interface TicketSatisfaction {
  rating: 'good' | 'bad';
  comment: string | null;
  rated_at: string;
}

export const TICKET_STATUSES = ['open', 'awaiting_client', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/**
 * A support ticket. `status` moves only through
 * modules/tickets/tickets.machine.ts with compare-and-set updates. `number` is the client's own
 * sequence (#1, #2, …) drawn from ticket_number_counters in the creating transaction.
 */
export const tickets = pgTable(
  'tickets',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    number: integer('number').notNull(),
    subject: text('subject').notNull(),
    category: text('category').notNull(),
    priority: text('priority').notNull(),
    /** open, awaiting_client, resolved, closed */
    status: text('status').$type<TicketStatus>().notNull(),
    references: jsonb('references').$type<TicketReference[]>().notNull().default(sql`'[]'::jsonb`),
    ccEmails: jsonb('cc_emails').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** client_user or client_api */
    createdByActorType: text('created_by_actor_type').notNull(),
    createdByAccountId: uuid('created_by_account_id'),
    createdByCredentialId: uuid('created_by_credential_id'),
    createdByEmail: text('created_by_email'),
    followUpOf: uuid('follow_up_of'),
    /** The deployment's environment when the ticket was opened (sandbox tickets are marked in the staff queue). */
    environment: text('environment').notNull(),
    assigneeStaffId: uuid('assignee_staff_id').references(() => staffAccounts.id),
    /** Public messages only (internal notes are not counted). */
    messageCount: integer('message_count').notNull().default(0),
    lastMessageAt: ts('last_message_at'),
    /** client or staff (public messages only) */
    lastMessageBy: text('last_message_by'),
    satisfaction: jsonb('satisfaction').$type<TicketSatisfaction | null>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    resolvedAt: ts('resolved_at'),
    closedAt: ts('closed_at'),
  },
  (t) => [
    uniqueIndex('tickets_client_number_uq').on(t.clientId, t.number),
    index('tickets_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('tickets_client_status_created_idx').on(t.clientId, t.status, desc(t.createdAt)),
    // The staff queue (all clients) and its filters.
    index('tickets_created_idx').on(desc(t.createdAt), desc(t.id)),
    index('tickets_status_created_idx').on(t.status, desc(t.createdAt)),
    index('tickets_assignee_created_idx').on(t.assigneeStaffId, desc(t.createdAt)),
  ],
);

/** The last ticket number handed out per client; bumped by an upsert in the creating transaction. */
export const ticketNumberCounters = pgTable('ticket_number_counters', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id),
  lastNumber: integer('last_number').notNull(),
});
