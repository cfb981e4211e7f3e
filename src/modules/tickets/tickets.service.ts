/**
 * Support tickets, the client's side (docs/guides/tickets.md): open, list, read, reply, attach,
 * close, reopen within the window, follow up, rate. Every write locks the ticket row, asks the
 * machine, and commits the change with its event, activity entry and notifications.
 */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { emitEvent } from '../../outbox/emit';
import type { ClientAuth } from '../../plugins/auth';
import { invalidField, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { normalizeSearchQuery, type PageParams, paginationMeta } from '../../shared/pagination';
import { diffChanges, recordActivity } from '../activity/activity-writer.service';
import {
  assertCanFollowUp,
  assertCanRate,
  assertClientEditable,
  decideClientClose,
  decideClientMessage,
  decideClientReopen,
  type TicketStatus,
} from './tickets.machine';
import { TicketMessages } from './tickets.messages';
import {
  attachmentsOf,
  findAttachment,
  findTicket,
  insertAttachments,
  insertMessage,
  insertTicket,
  listMessages,
  listTickets,
  nextTicketNumber,
  type TicketRow,
  updateTicket,
} from './tickets.repo';
import type { CreateTicketInput, TicketCategory, TicketPriority } from './tickets.schemas';
import { emitMessageCreated, moveTicket } from './tickets.transitions';
import { toMessageViews, toTicketView } from './tickets.view';
import { type CheckedAttachment, checkAttachments } from './tickets-attachments.service';

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

const target = (t: TicketRow) => ({
  type: 'ticket',
  id: t.id,
  label: `#${t.number} ${t.subject}`.slice(0, 200),
});

/** Trimmed text, or a 422 at `loc` when nothing is left. */
export function requireText(value: string, loc: string[]): string {
  const t = value.trim();
  if (t === '') throw invalidField(loc, `${loc[loc.length - 1]} must not be blank`);
  return t;
}

export function normalizeEmails(emails: string[] | undefined): string[] {
  return [...new Set((emails ?? []).map((e) => e.trim().toLowerCase()))];
}

/** The client's ticket, row-locked for the caller's transaction; 404 when absent or another client's. */
async function lockTicket(tx: DbOrTx, clientId: string, id: string): Promise<TicketRow> {
  const t = await findTicket(tx, clientId, id, true);
  if (!t) throw notFound(M.ticketNotFound);
  return t;
}

/** The author of a client message: the team member's name and email, or the API credential's label. */
async function clientAuthor(
  db: DbOrTx,
  auth: ClientAuth,
): Promise<{ name: string | null; email: string | null }> {
  const res = await db.execute(sql`
    select (select a.full_name from accounts a where a.id = ${auth.accountId}::uuid and a.client_id = ${auth.clientId}::uuid) as full_name,
           (select a.email from accounts a where a.id = ${auth.accountId}::uuid and a.client_id = ${auth.clientId}::uuid) as email,
           (select k.label from api_credentials k where k.id = ${auth.credentialId}::uuid) as label`);
  const r = rowsOf<{ full_name: string | null; email: string | null; label: string | null }>(res)[0];
  if (auth.actorType === 'client_user') return { name: r?.full_name ?? null, email: r?.email ?? null };
  return { name: r?.label ? `API credential ${r.label}` : 'API credential', email: null };
}

/** Stores a message's attachments (already checked) in the message's transaction. */
export function storeAttachments(
  tx: DbOrTx,
  ticket: TicketRow,
  messageId: string,
  files: CheckedAttachment[],
  now: Date,
) {
  return insertAttachments(
    tx,
    files.map((f) => ({
      ticketId: ticket.id,
      messageId,
      clientId: ticket.clientId,
      fileName: f.fileName,
      contentType: f.contentType,
      size: f.size,
      sha256: f.sha256,
      content: f.content,
      createdAt: now,
    })),
  );
}

export async function createTicket(deps: D, auth: ClientAuth, input: CreateTicketInput) {
  const subject = requireText(input.subject, ['body', 'subject']);
  const body = requireText(input.body, ['body', 'body']);
  const files = await checkAttachments(input.attachments, deps.config.ticketMaxAttachmentBytes);
  const author = await clientAuthor(deps.db, auth);
  const now = deps.clock.now();
  const ticket = await deps.db.transaction(async (tx) => {
    if (input.follow_up_of) {
      const original = await findTicket(tx, auth.clientId, input.follow_up_of);
      if (!original) throw notFound(M.ticketNotFound);
      assertCanFollowUp(original.status);
    }
    const number = await nextTicketNumber(tx, auth.clientId);
    const t = await insertTicket(tx, {
      clientId: auth.clientId,
      number,
      subject,
      category: input.category,
      priority: input.priority ?? 'normal',
      status: 'open',
      references: input.references ?? [],
      ccEmails: normalizeEmails(input.cc_emails),
      createdByActorType: auth.actorType,
      createdByAccountId: auth.accountId,
      createdByCredentialId: auth.credentialId,
      createdByEmail: author.email,
      followUpOf: input.follow_up_of ?? null,
      environment: deps.config.environment,
      messageCount: 1,
      lastMessageAt: now,
      lastMessageBy: 'client',
      createdAt: now,
      updatedAt: now,
    });
    const message = await insertMessage(tx, {
      ticketId: t.id,
      clientId: t.clientId,
      authorType: 'client',
      authorActorType: auth.actorType,
      authorAccountId: auth.accountId,
      authorName: author.name,
      body,
      createdAt: now,
    });
    await storeAttachments(tx, t, message.id, files, now);
    // The table's first row, (none) -> open, is announced like every other move.
    await emitEvent(tx, {
      clientId: t.clientId,
      type: 'ticket.status_changed',
      data: {
        ticket_id: t.id,
        number: t.number,
        previous_status: null,
        current_status: 'open',
        actor_type: auth.actorType,
      },
      occurredAt: now,
      dedupKey: `ticket:${t.id}:created`,
    });
    await emitMessageCreated(tx, t, message);
    await recordActivity(tx, {
      clientId: t.clientId,
      action: 'ticket.created',
      at: now,
      target: target(t),
      metadata: {
        category: t.category,
        priority: t.priority,
        follow_up_of: t.followUpOf,
        attachments: files.length,
      },
    });
    return t;
  });
  return toTicketView(ticket);
}

export async function listClientTickets(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  f: { status?: TicketStatus; category?: TicketCategory; priority?: TicketPriority; q?: string },
) {
  const { rows, total } = await listTickets(
    deps.db,
    { clientId, ...f, q: normalizeSearchQuery(f.q), searchInternal: false },
    page,
  );
  return { tickets: rows.map(toTicketView), pagination: paginationMeta(total, page) };
}

export async function getClientTicket(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const t = await findTicket(deps.db, clientId, id);
  if (!t) throw notFound(M.ticketNotFound);
  return toTicketView(t);
}

export async function patchClientTicket(
  deps: D,
  clientId: string,
  id: string,
  input: { priority?: TicketPriority; cc_emails?: string[] },
) {
  const now = deps.clock.now();
  const updated = await deps.db.transaction(async (tx) => {
    const t = await lockTicket(tx, clientId, id);
    assertClientEditable(t.status);
    const after = {
      priority: input.priority ?? t.priority,
      ccEmails: input.cc_emails ? normalizeEmails(input.cc_emails) : t.ccEmails,
    };
    const changes = diffChanges(
      { priority: t.priority, cc_emails: t.ccEmails },
      { priority: after.priority, cc_emails: after.ccEmails },
    );
    if (!changes) return t;
    const row = await updateTicket(tx, t.id, { ...after, updatedAt: now });
    await recordActivity(tx, { clientId, action: 'ticket.updated', at: now, target: target(t), changes });
    return row;
  });
  return toTicketView(updated);
}

export async function listClientMessages(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  id: string,
  page: PageParams,
  order: 'asc' | 'desc',
) {
  const t = await findTicket(deps.db, clientId, id);
  if (!t) throw notFound(M.ticketNotFound);
  const { rows, total } = await listMessages(deps.db, t.id, { includeInternal: false, order, page });
  const attachments = await attachmentsOf(
    deps.db,
    rows.map((m) => m.id),
  );
  return { messages: toMessageViews(rows, attachments), pagination: paginationMeta(total, page) };
}

export async function postClientMessage(
  deps: D,
  auth: ClientAuth,
  id: string,
  input: { body: string; attachments?: { file_name: string; content_base64: string }[] },
) {
  const body = requireText(input.body, ['body', 'body']);
  const files = await checkAttachments(input.attachments, deps.config.ticketMaxAttachmentBytes);
  const author = await clientAuthor(deps.db, auth);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const t = await lockTicket(tx, auth.clientId, id);
    const from = t.status;
    const transition = decideClientMessage(from, t.closedAt, now, deps.config.ticketReopenWindowDays);
    const message = await insertMessage(tx, {
      ticketId: t.id,
      clientId: t.clientId,
      authorType: 'client',
      authorActorType: auth.actorType,
      authorAccountId: auth.accountId,
      authorName: author.name,
      body,
      createdAt: now,
    });
    const stored = await storeAttachments(tx, t, message.id, files, now);
    const counters = {
      messageCount: t.messageCount + 1,
      lastMessageAt: now,
      lastMessageBy: 'client',
      updatedAt: now,
    };
    const after = transition
      ? await moveTicket(tx, t, transition, {
          now,
          actorType: auth.actorType,
          autoCloseDays: deps.config.ticketAutoCloseDays,
          extra: counters,
        })
      : await updateTicket(tx, t.id, counters);
    await emitMessageCreated(tx, t, message);
    await recordActivity(tx, {
      clientId: t.clientId,
      action: 'ticket.message_created',
      at: now,
      target: target(t),
      changes: diffChanges({ status: from }, { status: after.status }),
      metadata: { message_id: message.id, attachments: stored.length },
    });
    return toMessageViews([message], stored)[0]!;
  });
}

/** close / reopen: one machine decision, one move, one activity entry. */
async function clientMove(
  deps: D,
  auth: ClientAuth,
  id: string,
  decide: (t: TicketRow, now: Date) => 'client_close' | 'client_reopen',
  action: string,
) {
  const now = deps.clock.now();
  const moved = await deps.db.transaction(async (tx) => {
    const t = await lockTicket(tx, auth.clientId, id);
    const row = await moveTicket(tx, t, decide(t, now), {
      now,
      actorType: auth.actorType,
      autoCloseDays: deps.config.ticketAutoCloseDays,
    });
    await recordActivity(tx, {
      clientId: t.clientId,
      action,
      at: now,
      target: target(t),
      changes: { status: { from: t.status, to: row.status } },
    });
    return row;
  });
  return toTicketView(moved);
}

export function closeClientTicket(deps: D, auth: ClientAuth, id: string) {
  return clientMove(deps, auth, id, (t) => decideClientClose(t.status) as 'client_close', 'ticket.closed');
}

export function reopenClientTicket(deps: D, auth: ClientAuth, id: string) {
  return clientMove(
    deps,
    auth,
    id,
    (t, now) =>
      decideClientReopen(t.status, t.closedAt, now, deps.config.ticketReopenWindowDays) as 'client_reopen',
    'ticket.reopened',
  );
}

export async function rateClientTicket(
  deps: D,
  clientId: string,
  id: string,
  input: { rating: 'good' | 'bad'; comment?: string },
) {
  const now = deps.clock.now();
  const updated = await deps.db.transaction(async (tx) => {
    const t = await lockTicket(tx, clientId, id);
    assertCanRate(t.status);
    const satisfaction = {
      rating: input.rating,
      comment: input.comment?.trim() || null,
      rated_at: now.toISOString(),
    };
    const row = await updateTicket(tx, t.id, { satisfaction, updatedAt: now });
    await recordActivity(tx, {
      clientId,
      action: 'ticket.satisfaction_rated',
      at: now,
      target: target(t),
      changes: diffChanges({ rating: t.satisfaction?.rating ?? null }, { rating: input.rating }),
    });
    return row;
  });
  return toTicketView(updated);
}

/** An attachment of a public message; internal notes' files are never served on client routes. */
export async function downloadClientAttachment(deps: D, clientId: string, id: string, attachmentId: string) {
  const t = await findTicket(deps.db, clientId, id);
  if (!t) throw notFound(M.ticketNotFound);
  const file = await findAttachment(deps.db, t.id, attachmentId, false);
  if (!file) throw notFound(TicketMessages.attachmentNotFound);
  await recordActivity(deps.db, {
    clientId,
    action: 'ticket_attachment.downloaded',
    at: deps.clock.now(),
    target: { type: 'ticket_attachment', id: attachmentId, label: file.fileName },
    metadata: { ticket_id: t.id },
  });
  return file;
}
