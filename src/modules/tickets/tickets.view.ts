/** Rows to the API shapes: the client's view never carries internal notes or staff identities. */
import type { AttachmentMeta, MessageRow, TicketEmailRow, TicketRow } from './tickets.repo';
import type { TicketCategory, TicketPriority } from './tickets.schemas';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Staff replies are signed by the support team on client routes (no staff identity, as in events). */
export const STAFF_DISPLAY_NAME = 'Support';

export function toTicketView(t: TicketRow) {
  return {
    ticket_id: t.id,
    number: t.number,
    number_display: `#${t.number}`,
    subject: t.subject,
    // The literal unions are guaranteed by the writes (schema-validated input and the machine).
    category: t.category as TicketCategory,
    priority: t.priority as TicketPriority,
    status: t.status,
    references: t.references,
    cc_emails: t.ccEmails,
    created_by: {
      actor_type: t.createdByActorType as 'client_user' | 'client_api',
      account_id: t.createdByAccountId,
      email: t.createdByEmail,
    },
    follow_up_of: t.followUpOf,
    message_count: t.messageCount,
    last_message_at: iso(t.lastMessageAt),
    last_message_by: t.lastMessageBy as 'client' | 'staff' | null,
    satisfaction: t.satisfaction ?? null,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    resolved_at: iso(t.resolvedAt),
    closed_at: iso(t.closedAt),
  };
}

export function toAdminTicketView(t: TicketRow) {
  return {
    ...toTicketView(t),
    client_id: t.clientId,
    environment: t.environment as 'sandbox' | 'production',
    assignee_staff_id: t.assigneeStaffId,
  };
}

function attachmentView(a: AttachmentMeta) {
  return { attachment_id: a.id, file_name: a.fileName, content_type: a.contentType, size: a.size };
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const i of items) out.set(key(i), [...(out.get(key(i)) ?? []), i]);
  return out;
}

export function toMessageViews(messages: MessageRow[], attachments: AttachmentMeta[]) {
  const byMessage = groupBy(attachments, (a) => a.messageId);
  return messages.map((m) => ({
    message_id: m.id,
    ticket_id: m.ticketId,
    author_type: m.authorType as 'client' | 'staff',
    author:
      m.authorType === 'staff'
        ? { account_id: null, name: STAFF_DISPLAY_NAME }
        : { account_id: m.authorAccountId, name: m.authorName },
    body: m.body,
    attachments: (byMessage.get(m.id) ?? []).map(attachmentView),
    created_at: m.createdAt.toISOString(),
  }));
}

export function toAdminMessageViews(
  messages: MessageRow[],
  attachments: AttachmentMeta[],
  emails: TicketEmailRow[],
) {
  const byMessage = groupBy(attachments, (a) => a.messageId);
  const emailsByMessage = groupBy(emails, (e) => e.messageId);
  return messages.map((m) => ({
    message_id: m.id,
    ticket_id: m.ticketId,
    author_type: m.authorType as 'client' | 'staff',
    internal: m.internal,
    author: { account_id: m.authorAccountId, staff_id: m.authorStaffId, name: m.authorName },
    body: m.body,
    attachments: (byMessage.get(m.id) ?? []).map(attachmentView),
    emails: (emailsByMessage.get(m.id) ?? []).map((e) => ({
      recipient: e.recipient,
      state: e.state as 'pending' | 'sent' | 'failed',
      attempts: e.attempts,
      last_error: e.lastError,
      sent_at: iso(e.sentAt),
    })),
    created_at: m.createdAt.toISOString(),
  }));
}
