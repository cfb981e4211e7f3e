/** The queries of support tickets: tickets, their numbers, messages, attachments and owed emails. */
import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import {
  ticketAttachments,
  ticketEmails,
  ticketMessages,
  ticketNumberCounters,
  tickets,
} from '../../db/schema/index';
import { containsPattern, type PageParams } from '../../shared/pagination';
import type { TicketStatus } from './tickets.machine';

export type TicketRow = typeof tickets.$inferSelect;
export type MessageRow = typeof ticketMessages.$inferSelect;
export type AttachmentMeta = Omit<typeof ticketAttachments.$inferSelect, 'content'>;
export type TicketEmailRow = typeof ticketEmails.$inferSelect;
export type TicketChanges = Partial<Omit<typeof tickets.$inferInsert, 'id' | 'clientId' | 'number'>>;

/** The client's next ticket number: the counter row is bumped (and row-locked) in the creating transaction. */
export async function nextTicketNumber(tx: DbOrTx, clientId: string): Promise<number> {
  const [row] = await tx
    .insert(ticketNumberCounters)
    .values({ clientId, lastNumber: 1 })
    .onConflictDoUpdate({
      target: ticketNumberCounters.clientId,
      set: { lastNumber: sql`${ticketNumberCounters.lastNumber} + 1` },
    })
    .returning({ n: ticketNumberCounters.lastNumber });
  return row!.n;
}

export async function insertTicket(tx: DbOrTx, values: typeof tickets.$inferInsert): Promise<TicketRow> {
  const [row] = await tx.insert(tickets).values(values).returning();
  return row!;
}

/** A ticket of the client (or of anyone when clientId is null: staff), optionally row-locked. */
export async function findTicket(db: DbOrTx, clientId: string | null, id: string, forUpdate = false) {
  const where = clientId ? and(eq(tickets.id, id), eq(tickets.clientId, clientId)) : eq(tickets.id, id);
  const q = db.select().from(tickets).where(where);
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function updateTicket(tx: DbOrTx, id: string, changes: TicketChanges): Promise<TicketRow> {
  const [row] = await tx.update(tickets).set(changes).where(eq(tickets.id, id)).returning();
  return row!;
}

export interface TicketFilter {
  clientId?: string;
  status?: TicketStatus;
  category?: string;
  priority?: string;
  assigneeStaffId?: string;
  q?: string;
  /** Staff search looks into internal notes too; a client search never does. */
  searchInternal: boolean;
}

export async function listTickets(
  db: DbOrTx,
  f: TicketFilter,
  page: PageParams,
): Promise<{ rows: TicketRow[]; total: number }> {
  const where: SQL[] = [];
  if (f.clientId) where.push(eq(tickets.clientId, f.clientId));
  if (f.status) where.push(eq(tickets.status, f.status));
  if (f.category) where.push(eq(tickets.category, f.category));
  if (f.priority) where.push(eq(tickets.priority, f.priority));
  if (f.assigneeStaffId) where.push(eq(tickets.assigneeStaffId, f.assigneeStaffId));
  if (f.q) {
    const p = containsPattern(f.q);
    const notes = f.searchInternal ? sql`true` : sql`not m.internal`;
    where.push(sql`(${tickets.subject} ilike ${p}
      or ('#' || ${tickets.number}::text) ilike ${p}
      or exists (select 1 from ticket_messages m
                  where m.ticket_id = ${tickets.id} and ${notes} and m.body ilike ${p}))`);
  }
  const cond = where.length > 0 ? and(...where) : undefined;
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(tickets)
      .where(cond)
      .orderBy(desc(tickets.createdAt), desc(tickets.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(tickets).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

export async function insertMessage(tx: DbOrTx, values: typeof ticketMessages.$inferInsert) {
  const [row] = await tx.insert(ticketMessages).values(values).returning();
  return row!;
}

const attachmentMetaColumns = {
  id: ticketAttachments.id,
  ticketId: ticketAttachments.ticketId,
  messageId: ticketAttachments.messageId,
  clientId: ticketAttachments.clientId,
  fileName: ticketAttachments.fileName,
  contentType: ticketAttachments.contentType,
  size: ticketAttachments.size,
  sha256: ticketAttachments.sha256,
  createdAt: ticketAttachments.createdAt,
};

export async function insertAttachments(
  tx: DbOrTx,
  values: (typeof ticketAttachments.$inferInsert)[],
): Promise<AttachmentMeta[]> {
  if (values.length === 0) return [];
  return tx.insert(ticketAttachments).values(values).returning(attachmentMetaColumns);
}

/** A ticket's messages, one page (internal notes only when asked). */
export async function listMessages(
  db: DbOrTx,
  ticketId: string,
  opts: { includeInternal: boolean; order: 'asc' | 'desc'; page?: PageParams },
): Promise<{ rows: MessageRow[]; total: number }> {
  const cond = opts.includeInternal
    ? eq(ticketMessages.ticketId, ticketId)
    : and(eq(ticketMessages.ticketId, ticketId), eq(ticketMessages.internal, false));
  const order =
    opts.order === 'asc'
      ? [asc(ticketMessages.createdAt), asc(ticketMessages.id)]
      : [desc(ticketMessages.createdAt), desc(ticketMessages.id)];
  const q = db
    .select()
    .from(ticketMessages)
    .where(cond)
    .orderBy(...order);
  const [rows, totals] = await Promise.all([
    opts.page ? q.limit(opts.page.pageSize).offset(opts.page.offset) : q,
    db.select({ n: count() }).from(ticketMessages).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

/** The attachments of some messages, in one query. */
export async function attachmentsOf(db: DbOrTx, messageIds: string[]): Promise<AttachmentMeta[]> {
  if (messageIds.length === 0) return [];
  return db
    .select(attachmentMetaColumns)
    .from(ticketAttachments)
    .where(inArray(ticketAttachments.messageId, messageIds))
    .orderBy(asc(ticketAttachments.createdAt), asc(ticketAttachments.id));
}

/** An attachment of the ticket with its bytes; an internal note's only when `includeInternal`. */
export async function findAttachment(
  db: DbOrTx,
  ticketId: string,
  attachmentId: string,
  includeInternal: boolean,
) {
  const [row] = await db
    .select({
      fileName: ticketAttachments.fileName,
      contentType: ticketAttachments.contentType,
      size: ticketAttachments.size,
      sha256: ticketAttachments.sha256,
      content: ticketAttachments.content,
      internal: ticketMessages.internal,
    })
    .from(ticketAttachments)
    .innerJoin(ticketMessages, eq(ticketMessages.id, ticketAttachments.messageId))
    .where(and(eq(ticketAttachments.id, attachmentId), eq(ticketAttachments.ticketId, ticketId)));
  if (!row || (row.internal && !includeInternal)) return undefined;
  return row;
}

// ---- owed emails ----

export async function insertTicketEmails(
  tx: DbOrTx,
  values: (typeof ticketEmails.$inferInsert)[],
): Promise<string[]> {
  if (values.length === 0) return [];
  const rows = await tx.insert(ticketEmails).values(values).returning({ id: ticketEmails.id });
  return rows.map((r) => r.id);
}

export async function emailsOfMessages(db: DbOrTx, messageIds: string[]): Promise<TicketEmailRow[]> {
  if (messageIds.length === 0) return [];
  return db
    .select()
    .from(ticketEmails)
    .where(inArray(ticketEmails.messageId, messageIds))
    .orderBy(asc(ticketEmails.createdAt), asc(ticketEmails.recipient));
}

/** One owed email with what it says (the ticket and the staff reply). */
export async function ticketEmailWithReply(db: DbOrTx, id: string) {
  const res = await db.execute(sql`
    select e.id, e.recipient, e.state, t.id as ticket_id, t.number, t.subject, m.body
      from ticket_emails e
      join ticket_messages m on m.id = e.message_id
      join tickets t on t.id = e.ticket_id
     where e.id = ${id}::uuid`);
  return (
    rowsOf<{
      id: string;
      recipient: string;
      state: string;
      ticket_id: string;
      number: number;
      subject: string;
      body: string;
    }>(res)[0] ?? null
  );
}

export async function markTicketEmail(
  db: DbOrTx,
  id: string,
  changes: Partial<Pick<TicketEmailRow, 'state' | 'attempts' | 'lastError' | 'sentAt'>>,
) {
  await db.update(ticketEmails).set(changes).where(eq(ticketEmails.id, id));
}

/** Resolved tickets past the auto-close cutoff, row-locked (SKIP LOCKED) for the caller's transaction. */
