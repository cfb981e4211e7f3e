/** Support tickets: list with the API's filters in the URL, open a ticket, and a ticket's messages with reply. */
import { useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, Page, Select, useAction, useLoad, when } from '../ui/kit';
import { LinkTable, urlPicker, useUrlFilters } from '../ui/list';
import { Pager, type Pagination } from './payments-shared';

const STATUSES = ['open', 'awaiting_client', 'resolved', 'closed'];
const CATEGORIES = [
  'payments',
  'verification',
  'opcos',
  'contracts',
  'compliance',
  'billing',
  'technical',
  'other',
];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];

interface Ticket {
  ticket_id: string;
  number: number;
  subject: string;
  category: string;
  priority: string;
  status: string;
  message_count: number;
  last_message_at: string | null;
  last_message_by: 'client' | 'staff' | null;
  created_at: string;
  closed_at: string | null;
}

interface Message {
  message_id: string;
  author_type: 'client' | 'staff';
  author: { account_id: string | null; name: string | null } | null;
  body: string;
  attachments: { attachment_id: string; file_name: string; size: number }[];
  created_at: string;
}

const FILTERS = ['q', 'status', 'category', 'priority', 'page', 'page_size'] as const;

export function TicketsPage() {
  const { api, can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useLoad(
    () => api.get<{ tickets: Ticket[]; pagination: Pagination }>('/tickets', { query: f.query }),
    [api, f.key],
  );
  const pick = urlPicker(f);
  return (
    <Page
      title="Support tickets"
      actions={
        can('tickets.write') ? (
          <Link className="button" to="/tickets/new">
            Open a ticket
          </Link>
        ) : null
      }
    >
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Search" name="q" value={f.value('q')} onChange={(v) => f.setFilter('q', v)} />
        {pick('status', 'Status', STATUSES)}
        {pick('category', 'Category', CATEGORIES)}
        {pick('priority', 'Priority', PRIORITIES)}
      </form>
      <ErrorBox error={list.error} />
      {list.data ? (
        <>
          <LinkTable
            rows={list.data.tickets}
            rowKey={(t) => t.ticket_id}
            href={(t) => `/tickets/${t.ticket_id}`}
            empty="No tickets."
            columns={[
              { label: 'Ticket', cell: (t) => `#${t.number} ${t.subject}` },
              { label: 'Status', cell: (t) => <Badge value={t.status} /> },
              { label: 'Priority', cell: (t) => t.priority },
              {
                label: 'Last message',
                cell: (t) => `${when(t.last_message_at)} (${t.last_message_by ?? '—'})`,
              },
            ]}
          />
          <Pager p={list.data.pagination} go={(n) => f.setFilter('page', String(n))} />
        </>
      ) : list.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}

export function TicketCreatePage() {
  const { api } = useSession();
  const navigate = useNavigate();
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [category, setCategory] = useState('payments');
  const [priority, setPriority] = useState('normal');
  const act = useAction();
  return (
    <Page title="Open a ticket">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            const t = await api.post<Ticket>('/tickets', { subject, body, category, priority });
            navigate(`/tickets/${t.ticket_id}`);
          });
        }}
      >
        <Field label="Subject" name="subject" value={subject} onChange={setSubject} required />
        <Select
          label="Category"
          name="category"
          value={category}
          onChange={setCategory}
          options={CATEGORIES}
        />
        <Select
          label="Priority"
          name="priority"
          value={priority}
          onChange={setPriority}
          options={PRIORITIES}
        />
        <TextArea label="Message" value={body} onChange={setBody} />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          {act.busy ? 'Working…' : 'Open ticket'}
        </button>
      </form>
    </Page>
  );
}

function TextArea(props: { label: string; value: string; onChange(v: string): void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <textarea
        id={id}
        name="body"
        rows={6}
        required
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </div>
  );
}

export function TicketDetailPage() {
  const { id = '' } = useParams();
  const { api, can } = useSession();
  const data = useLoad(async () => {
    const [ticket, msgs] = await Promise.all([
      api.get<Ticket>(`/tickets/${id}`),
      api.get<{ messages: Message[] }>(`/tickets/${id}/messages`, { query: { page_size: 200 } }),
    ]);
    return { ticket, messages: msgs.messages };
  }, [api, id]);
  const [reply, setReply] = useState('');
  const act = useAction();
  const write = can('tickets.write');
  const t = data.data?.ticket;
  const doAct = (fn: () => Promise<unknown>) =>
    act.run(async () => {
      await fn();
      data.reload();
    });

  return (
    <Page title={t ? `Ticket #${t.number}` : 'Ticket'}>
      <p>
        <Link to="/tickets">Back to tickets</Link>
      </p>
      <ErrorBox error={data.error} />
      {t && data.data ? (
        <>
          <dl className="facts">
            <dt>Subject</dt>
            <dd>{t.subject}</dd>
            <dt>Status</dt>
            <dd>
              <Badge value={t.status} />
            </dd>
            <dt>Category</dt>
            <dd>{t.category}</dd>
            <dt>Priority</dt>
            <dd>{t.priority}</dd>
            <dt>Opened</dt>
            <dd>{when(t.created_at)}</dd>
          </dl>
          {write && (t.status === 'resolved' || t.status === 'closed') ? (
            <div className="actions">
              {t.status === 'resolved' ? (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => doAct(() => api.post(`/tickets/${id}/close`))}
                >
                  Close ticket
                </button>
              ) : (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => doAct(() => api.post(`/tickets/${id}/reopen`))}
                >
                  Reopen ticket
                </button>
              )}
            </div>
          ) : null}
          <h2>Messages</h2>
          <ul className="plain messages">
            {data.data.messages.map((m) => (
              <li key={m.message_id}>
                <h3 className="meta item-title">
                  {m.author_type === 'staff' ? 'Support' : (m.author?.name ?? 'You')} · {when(m.created_at)}
                </h3>
                <p className="message-body">{m.body}</p>
                {m.attachments.map((a) => (
                  <span key={a.attachment_id} className="meta">
                    {a.file_name} ({a.size} bytes){' '}
                  </span>
                ))}
              </li>
            ))}
          </ul>
          {write && t.status !== 'closed' ? (
            <form
              aria-label="Reply to the ticket"
              onSubmit={(e) => {
                e.preventDefault();
                doAct(async () => {
                  await api.post(`/tickets/${id}/messages`, { body: reply });
                  setReply('');
                });
              }}
            >
              <TextArea label="Your reply" value={reply} onChange={setReply} />
              <button type="submit" disabled={act.busy}>
                {act.busy ? 'Working…' : 'Send reply'}
              </button>
            </form>
          ) : null}
          <ErrorBox error={act.error} />
        </>
      ) : data.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}
