/** Support tickets: list with the API's filters in the URL, open a ticket, and a ticket's messages with reply. */
import { useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type ApiBody, type ApiData, allows, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, Page, Select, when } from '../ui/kit';
import { urlPicker, useUrlFilters } from '../ui/list';
import { QueryError, QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';

type Ticket = ApiData<'get', '/tickets/{ticket_id}'>;
type NewTicket = ApiBody<'post', '/tickets'>;

const STATUSES = [
  'open',
  'awaiting_client',
  'resolved',
  'closed',
] as const satisfies readonly Ticket['status'][];
const CATEGORIES = [
  'payments',
  'verification',
  'opcos',
  'contracts',
  'compliance',
  'billing',
  'technical',
  'other',
] as const satisfies readonly NewTicket['category'][];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const satisfies readonly NonNullable<
  NewTicket['priority']
>[];

const FILTERS = ['q', 'status', 'category', 'priority', 'page', 'page_size'] as const;

export function TicketsPage() {
  const { can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/tickets', { query: f.query, keep: true });
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
      <QueryView q={list} what="your tickets">
        {(data) => (
          <>
            <DataTable
              rows={data.tickets}
              rowKey={(t) => t.ticket_id}
              rowLink={(t) => `/tickets/${t.ticket_id}`}
              empty="No tickets yet. A ticket is a support conversation with our team about a payment, a verification or your account."
              guide={{ slug: 'tickets', title: 'Tickets guide' }}
              columns={[
                { header: 'Ticket', cell: (t) => `#${t.number} ${t.subject}` },
                { header: 'Status', cell: (t) => <Badge value={t.status} /> },
                { header: 'Priority', cell: (t) => t.priority },
                {
                  header: 'Last message',
                  cell: (t) => `${when(t.last_message_at)} (${t.last_message_by ?? '—'})`,
                },
              ]}
            />
            <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

export function TicketCreatePage() {
  const navigate = useNavigate();
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [category, setCategory] = useState<NewTicket['category']>('payments');
  const [priority, setPriority] = useState<NonNullable<NewTicket['priority']>>('normal');
  const act = useApiActions({ invalidate: ['/tickets'] });
  return (
    <Page title="Open a ticket">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            const t = await act.call('post', '/tickets', { body: { subject, body, category, priority } });
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
  const path = { ticket_id: id };
  const ticket = useApiQuery('/tickets/{ticket_id}', { path });
  const messages = useApiQuery('/tickets/{ticket_id}/messages', { path, query: { page_size: 200 } });
  const [reply, setReply] = useState('');
  const act = useApiActions({ invalidate: ['/tickets'] });
  const t = ticket.data;

  return (
    <Page title={t ? `Ticket #${t.number}` : 'Ticket'}>
      <p>
        <Link to="/tickets">Back to tickets</Link>
      </p>
      <QueryView q={ticket} what="the ticket" lines={6}>
        {(t) => (
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
            {allows(t, 'close') || allows(t, 'reopen') ? (
              <div className="actions">
                {allows(t, 'close') ? (
                  <button
                    type="button"
                    className="secondary"
                    disabled={act.busy}
                    onClick={() => act.send('post', '/tickets/{ticket_id}/close', { path })}
                  >
                    Close ticket
                  </button>
                ) : null}
                {allows(t, 'reopen') ? (
                  <button
                    type="button"
                    className="secondary"
                    disabled={act.busy}
                    onClick={() => act.send('post', '/tickets/{ticket_id}/reopen', { path })}
                  >
                    Reopen ticket
                  </button>
                ) : null}
              </div>
            ) : null}
            <h2>Messages</h2>
            <QueryError error={messages.error} what="the messages" />
            <ul className="plain messages">
              {messages.data?.messages.map((m) => (
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
            {allows(t, 'reply') ? (
              <form
                aria-label="Reply to the ticket"
                onSubmit={(e) => {
                  e.preventDefault();
                  act.run(async () => {
                    await act.call('post', '/tickets/{ticket_id}/messages', { path, body: { body: reply } });
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
        )}
      </QueryView>
    </Page>
  );
}
