import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { staffAccounts } from './accounts';
import { clients } from './clients';
import { bytea, createdAt, idColumn, ts } from './columns';
import { tickets } from './tickets';

/** A message on a ticket: the client's or staff's public messages, and staff-only internal notes. */
export const ticketMessages = pgTable(
  'ticket_messages',
  {
    id: idColumn('id'),
    ticketId: uuid('ticket_id')
      .notNull()
      .references(() => tickets.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    /** client or staff */
    authorType: text('author_type').notNull(),
    /** client_user or client_api (client messages); service_internal (staff) */
    authorActorType: text('author_actor_type').notNull(),
    authorAccountId: uuid('author_account_id'),
    authorStaffId: uuid('author_staff_id').references(() => staffAccounts.id),
    authorName: text('author_name'),
    /** Staff-only note: never on a client route, in an event, an email or a client search. */
    internal: boolean('internal').notNull().default(false),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('ticket_messages_ticket_created_idx').on(t.ticketId, t.createdAt, t.id)],
);

/**
 * A file attached to a message, kept in the database (bytea): it commits with its message in one
 * transaction, every API node reads it, and the database backup covers it.
 */
export const ticketAttachments = pgTable(
  'ticket_attachments',
  {
    id: idColumn('id'),
    ticketId: uuid('ticket_id')
      .notNull()
      .references(() => tickets.id),
    messageId: uuid('message_id')
      .notNull()
      .references(() => ticketMessages.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    fileName: text('file_name').notNull(),
    /** Decided from the bytes (magic numbers / UTF-8 text), never taken from the caller. */
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    content: bytea('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('ticket_attachments_message_idx').on(t.messageId)],
);

/**
 * Email owed for a staff public reply, one row per recipient (the creator and each CC): written in
 * the reply's transaction and sent by the ticket-email worker, so a reply never loses its email and
 * a retry never mails a recipient twice.
 */
export const ticketEmails = pgTable(
  'ticket_emails',
  {
    id: idColumn('id'),
    ticketId: uuid('ticket_id')
      .notNull()
      .references(() => tickets.id),
    messageId: uuid('message_id')
      .notNull()
      .references(() => ticketMessages.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    recipient: text('recipient').notNull(),
    /** pending, sent, failed (gave up after the last attempt) */
    state: text('state').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at'),
    lastError: text('last_error'),
    sentAt: ts('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('ticket_emails_due_idx').on(t.nextAttemptAt).where(sql`state = 'pending'`),
    index('ticket_emails_message_idx').on(t.messageId),
  ],
);
