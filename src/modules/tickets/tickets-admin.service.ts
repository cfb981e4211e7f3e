/**
 * Support tickets, the staff side: the queue over every client (sandbox tickets marked by
 * `environment`), the detail with internal notes, replies (public or internal) and PATCH.
 * A public reply owes an email to the creator and each CC: rows written in the reply's transaction,
 * sent by the ticket-email worker (tickets.mail.ts).
 */
import { eq, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import { staffAccounts } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { badRequest, invalidField, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { normalizeSearchQuery, type PageParams, paginationMeta } from '../../shared/pagination';
import { diffChanges, recordActivity } from '../activity/activity-writer.service';
import { oweTicketEmails } from './ticket-email.service';
import { decideStaffMove, type TicketStatus } from './tickets.machine';
import { TicketMessages } from './tickets.messages';
import {
  attachmentsOf,
  emailsOfMessages,
  findAttachment,
  findTicket,
  insertMessage,
  insertTicketEmails,
  listMessages,
  listTickets,
  type TicketRow,
  updateTicket,
} from './tickets.repo';
import type { TicketCategory, TicketPriority } from './tickets.schemas';
import { requireText, storeAttachments } from './tickets.service';
import { emitMessageCreated, moveTicket, notifyTicket } from './tickets.transitions';
import { toAdminMessageViews, toAdminTicketView } from './tickets.view';
import { checkAttachments } from './tickets-attachments.service';

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

const target = (t: TicketRow) => ({
  type: 'ticket',
  id: t.id,
  label: `#${t.number} ${t.subject}`.slice(0, 200),
});

async function lockAnyTicket(tx: DbOrTx, id: string): Promise<TicketRow> {
  const t = await findTicket(tx, null, id, true);
  if (!t) throw notFound(M.ticketNotFound);
  return t;
}

export async function listAdminTickets(
  deps: Pick<Deps, 'db'>,
  page: PageParams,
  f: {
    client_id?: string;
    status?: TicketStatus;
    priority?: TicketPriority;
    assignee_staff_id?: string;
    q?: string;
  },
) {
  const { rows, total } = await listTickets(
    deps.db,
    {
      clientId: f.client_id,
      status: f.status,
      priority: f.priority,
      assigneeStaffId: f.assignee_staff_id,
      q: normalizeSearchQuery(f.q),
      searchInternal: true,
    },
    page,
  );
  return { tickets: rows.map(toAdminTicketView), pagination: paginationMeta(total, page) };
}

export async function getAdminTicket(deps: Pick<Deps, 'db'>, id: string) {
  const t = await findTicket(deps.db, null, id);
  if (!t) throw notFound(M.ticketNotFound);
  const { rows } = await listMessages(deps.db, t.id, { includeInternal: true, order: 'asc' });
  const ids = rows.map((m) => m.id);
  const [attachments, emails] = await Promise.all([
    attachmentsOf(deps.db, ids),
    emailsOfMessages(deps.db, ids),
  ]);
  return { ...toAdminTicketView(t), messages: toAdminMessageViews(rows, attachments, emails) };
}

/** Where a staff public reply is emailed: the creator (or, for API-made tickets, the client's address) and the CCs. */
async function replyRecipients(tx: DbOrTx, t: TicketRow): Promise<string[]> {
  let creator = t.createdByEmail;
  if (!creator) {
    const res = await tx.execute(sql`select email from clients where id = ${t.clientId}::uuid`);
    creator = rowsOf<{ email: string }>(res)[0]?.email ?? null;
  }
  return [...new Set([creator, ...t.ccEmails].filter((e): e is string => !!e).map((e) => e.toLowerCase()))];
}

/**
 * Who writes a staff reply: a staff account (its name shown), or the sandbox's simulated agent (no
 * account; the reply's activity entry says `simulated`).
 */
export type StaffAuthor = { staffId: string } | { staffId: null; name: string; simulated: true };

async function authorName(deps: D, author: StaffAuthor): Promise<string | null> {
  if (author.staffId === null) return author.name;
  const [staff] = await deps.db
    .select({ name: staffAccounts.fullName, email: staffAccounts.email })
    .from(staffAccounts)
    .where(eq(staffAccounts.id, author.staffId));
  return staff?.name ?? staff?.email ?? null;
}

export async function postStaffMessage(
  deps: D,
  author: StaffAuthor,
  id: string,
  input: {
    body: string;
    attachments?: { file_name: string; content_base64: string }[];
    internal?: boolean;
    status?: 'awaiting_client' | 'open' | 'resolved';
  },
) {
  const internal = input.internal ?? false;
  if (internal && input.status !== undefined)
    throw invalidField(['body', 'status'], TicketMessages.statusOnInternalNote);
  const body = requireText(input.body, ['body', 'body']);
  const files = await checkAttachments(input.attachments, deps.config.ticketMaxAttachmentBytes);
  const name = await authorName(deps, author);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const t = await lockAnyTicket(tx, id);
    const from = t.status;
    let transition = null;
    if (!internal) {
      if (from === 'closed') throw badRequest(TicketMessages.closedNoStaffReplies);
      const to = input.status ?? (from === 'resolved' ? 'resolved' : 'awaiting_client');
      transition = decideStaffMove(from, to);
    }
    const message = await insertMessage(tx, {
      ticketId: t.id,
      clientId: t.clientId,
      authorType: 'staff',
      authorActorType: 'service_internal',
      authorStaffId: author.staffId,
      authorName: name,
      internal,
      body,
      createdAt: now,
    });
    const stored = await storeAttachments(tx, t, message.id, files, now);
    // An internal note is invisible to the client: no ticket change, event, email, notification or
    // client activity entry (the activity log is the client's to read).
    if (!internal) {
      const counters = {
        messageCount: t.messageCount + 1,
        lastMessageAt: now,
        lastMessageBy: 'staff',
        updatedAt: now,
      };
      const after = transition
        ? await moveTicket(tx, t, transition, {
            now,
            actorType: 'service_internal',
            autoCloseDays: deps.config.ticketAutoCloseDays,
            extra: counters,
          })
        : await updateTicket(tx, t.id, counters);
      await emitMessageCreated(tx, t, message);
      const recipients = await replyRecipients(tx, t);
      const owed = await insertTicketEmails(
        tx,
        recipients.map((recipient) => ({
          ticketId: t.id,
          messageId: message.id,
          clientId: t.clientId,
          recipient,
          createdAt: now,
        })),
      );
      await oweTicketEmails(tx, now, t.clientId, owed);
      // A resolving reply is announced once, by the resolution (moveTicket).
      if (after.status !== 'resolved' || from === 'resolved') await notifyTicket(tx, after, now, 'replied');
      await recordActivity(tx, {
        clientId: t.clientId,
        action: 'ticket.message_created',
        at: now,
        target: target(t),
        changes: diffChanges({ status: from }, { status: after.status }),
        metadata: {
          message_id: message.id,
          attachments: stored.length,
          emailed: recipients.length,
          ...(author.staffId === null ? { simulated: true } : {}),
        },
      });
    }
    const emails = await emailsOfMessages(tx, [message.id]);
    return toAdminMessageViews([message], stored, emails)[0]!;
  });
}

export async function patchAdminTicket(
  deps: D,
  id: string,
  input: {
    status?: TicketStatus;
    priority?: TicketPriority;
    category?: TicketCategory;
    assignee_staff_id?: string | null;
  },
) {
  if (input.assignee_staff_id) {
    const [s] = await deps.db
      .select({ id: staffAccounts.id })
      .from(staffAccounts)
      .where(eq(staffAccounts.id, input.assignee_staff_id));
    if (!s) throw notFound(TicketMessages.staffNotFound);
  }
  const now = deps.clock.now();
  const updated = await deps.db.transaction(async (tx) => {
    const t = await lockAnyTicket(tx, id);
    const transition = input.status ? decideStaffMove(t.status, input.status) : null;
    const fields = {
      priority: input.priority ?? t.priority,
      category: input.category ?? t.category,
      assigneeStaffId: input.assignee_staff_id === undefined ? t.assigneeStaffId : input.assignee_staff_id,
    };
    const extra = { ...fields, updatedAt: now };
    const row = transition
      ? await moveTicket(tx, t, transition, {
          now,
          actorType: 'service_internal',
          autoCloseDays: deps.config.ticketAutoCloseDays,
          extra,
        })
      : await updateTicket(tx, t.id, extra);
    // Staff stay anonymous to the client: the assignee shows up only as "changed".
    await recordActivity(tx, {
      clientId: t.clientId,
      action: 'ticket.updated',
      at: now,
      target: target(t),
      changes: diffChanges(
        { status: t.status, priority: t.priority, category: t.category },
        { status: row.status, priority: row.priority, category: row.category },
      ),
      metadata: { assignee_changed: row.assigneeStaffId !== t.assigneeStaffId },
    });
    return row;
  });
  return toAdminTicketView(updated);
}

export async function downloadAdminAttachment(deps: Pick<Deps, 'db'>, id: string, attachmentId: string) {
  const t = await findTicket(deps.db, null, id);
  if (!t) throw notFound(M.ticketNotFound);
  const file = await findAttachment(deps.db, t.id, attachmentId, true);
  if (!file) throw notFound(TicketMessages.attachmentNotFound);
  return file;
}
