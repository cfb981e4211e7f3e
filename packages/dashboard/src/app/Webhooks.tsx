/** Webhooks: main endpoint settings and secret, destinations, deliveries with retry, a test event. */
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { allows, useApiMutation, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, Page, SecretOnce, Select, when } from '../ui/kit';
import { QueryError } from '../ui/states';
import { DataTable } from '../ui/table';

const DELIVERY_STATUSES = ['', 'pending', 'succeeded', 'retrying', 'dead_letter'];

export function WebhooksPage() {
  const { can } = useSession();
  const write = can('webhooks.write');
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <Page title="Webhooks">
      {secret ? <SecretOnce label="Signing secret" value={secret} /> : null}
      <MainEndpoint write={write} onSecret={setSecret} />
      <Destinations write={write} onSecret={setSecret} />
      <Deliveries />
    </Page>
  );
}

function MainEndpoint({ write, onSecret }: { write: boolean; onSecret(s: string): void }) {
  const sub = useApiQuery('/webhooks/subscription');
  const save = useApiMutation('put', '/webhooks/subscription', { invalidate: ['/webhooks/subscription'] });
  const rotate = useApiMutation('post', '/webhooks/subscription/secret');
  const test = useApiMutation('post', '/webhooks/subscription/test', {
    invalidate: ['/webhooks/deliveries'],
  });
  const [url, setUrl] = useState<string | null>(null);
  const [sent, setSent] = useState('');
  const busy = save.isPending || rotate.isPending || test.isPending;
  const shown = url ?? sub.data?.webhook_url ?? '';
  return (
    <>
      <h2>Main endpoint</h2>
      <QueryError error={sub.error} what="the webhook settings" retry={() => sub.refetch()} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(
            { body: { webhook_url: shown.trim() || null, webhook_enabled: Boolean(shown.trim()) } },
            { onSuccess: (r) => (r.webhook_secret ? onSecret(r.webhook_secret) : undefined) },
          );
        }}
      >
        <Field label="Webhook URL" name="webhook_url" type="url" value={shown} onChange={setUrl} />
        <p>
          Delivery: <Badge value={sub.data?.webhook_enabled ? 'enabled' : 'disabled'} />
        </p>
        {write ? (
          <div className="actions">
            <button type="submit" disabled={busy}>
              Save endpoint
            </button>
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() =>
                rotate.mutate({ body: undefined }, { onSuccess: (r) => onSecret(r.webhook_secret) })
              }
            >
              Rotate signing secret
            </button>
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() =>
                test.mutate({ body: undefined }, { onSuccess: () => setSent('Test event sent.') })
              }
            >
              Send test event
            </button>
          </div>
        ) : null}
      </form>
      {sent ? <p role="status">{sent}</p> : null}
      <ErrorBox error={save.error ?? rotate.error ?? test.error} />
    </>
  );
}

function Destinations({ write, onSecret }: { write: boolean; onSecret(s: string): void }) {
  const list = useApiQuery('/webhooks/destinations');
  const inv = { invalidate: ['/webhooks/destinations'] as const };
  const add = useApiMutation('post', '/webhooks/destinations', inv);
  const toggle = useApiMutation('patch', '/webhooks/destinations/{destination_id}', inv);
  const remove = useApiMutation('delete', '/webhooks/destinations/{destination_id}', inv);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  return (
    <>
      <h2>Additional destinations</h2>
      {write ? (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(
              {
                body: {
                  url: url.trim(),
                  event_types: [],
                  ...(description.trim() ? { description: description.trim() } : {}),
                },
              },
              {
                onSuccess: (d) => {
                  if (d.secret) onSecret(d.secret);
                  setUrl('');
                  setDescription('');
                },
              },
            );
          }}
        >
          <Field label="Destination URL" name="url" type="url" value={url} onChange={setUrl} required />
          <Field label="Description" name="description" value={description} onChange={setDescription} />
          <button type="submit" disabled={add.isPending}>
            Add destination
          </button>
        </form>
      ) : null}
      <ErrorBox error={add.error ?? toggle.error ?? remove.error} />
      <QueryError error={list.error} what="the destinations" retry={() => list.refetch()} />
      <ul className="plain">
        {list.data?.destinations.map((d) => (
          <li key={d.destination_id}>
            <code>{d.url}</code> {d.description ? `— ${d.description}` : ''}{' '}
            <Badge value={d.enabled ? 'enabled' : 'disabled'} />
            {write ? (
              <>
                <button
                  type="button"
                  className="secondary"
                  onClick={() =>
                    toggle.mutate({
                      path: { destination_id: d.destination_id },
                      body: { enabled: !d.enabled },
                    })
                  }
                >
                  {d.enabled ? 'Disable' : 'Enable'}
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() =>
                    remove.mutate({ path: { destination_id: d.destination_id }, body: undefined })
                  }
                >
                  Delete
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}

function Deliveries() {
  const [params, setParams] = useSearchParams();
  const status = params.get('delivery_status') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const list = useApiQuery('/webhooks/deliveries', {
    query: { status, offset, limit: 20 },
    poll: 5000,
    keep: true,
  });
  const retry = useApiMutation('post', '/webhooks/deliveries/{delivery_id}/retry', {
    invalidate: ['/webhooks/deliveries'],
  });
  const setQ = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v && v !== '0') next.set(k, v);
    else next.delete(k);
    if (k !== 'offset') next.delete('offset');
    setParams(next);
  };
  return (
    <>
      <h2>Deliveries</h2>
      <Select
        label="Delivery status"
        name="delivery_status"
        value={status}
        onChange={(v) => setQ('delivery_status', v)}
        options={DELIVERY_STATUSES}
      />
      <ErrorBox error={retry.error} />
      <QueryError error={list.error} what="the deliveries" retry={() => list.refetch()} />
      <DataTable
        rows={list.data?.deliveries ?? []}
        rowKey={(d) => d.delivery_id}
        rowProps={() => ({ 'data-testid': 'delivery-row' })}
        columns={[
          {
            header: 'Event',
            cell: (d) => (
              <>
                <Link to={`/webhooks/deliveries/${d.delivery_id}`}>{d.event_type}</Link>
                {d.event_status ? <span className="muted"> → {d.event_status}</span> : null}
              </>
            ),
          },
          { header: 'Endpoint', cell: (d) => <code>{d.url}</code> },
          {
            header: 'Status',
            cell: (d) => (
              <>
                <Badge value={d.status} />
                {d.last_response_status ? ` HTTP ${d.last_response_status}` : ''}
                {d.last_error && d.last_error !== `HTTP ${d.last_response_status}` ? (
                  <small className="hint"> {d.last_error}</small>
                ) : null}
              </>
            ),
          },
          { header: 'Attempts', cell: (d) => d.attempts },
          { header: 'Created', cell: (d) => when(d.created_at) },
          {
            header: 'Actions',
            cell: (d) =>
              allows(d, 'retry') ? (
                <button
                  type="button"
                  aria-label={`${d.status === 'succeeded' ? 'Resend' : 'Retry'} ${d.event_type} delivery`}
                  onClick={() => retry.mutate({ path: { delivery_id: d.delivery_id }, body: undefined })}
                >
                  {d.status === 'succeeded' ? 'Resend' : 'Retry'}
                </button>
              ) : null,
          },
        ]}
      />
      {list.data && list.data.total > list.data.limit ? (
        <nav className="pager" aria-label="Delivery pages">
          <button
            type="button"
            disabled={offset === 0}
            onClick={() => setQ('offset', String(Math.max(0, offset - 20)))}
          >
            Previous
          </button>
          <span>
            {offset + 1}–{Math.min(offset + 20, list.data.total)} of {list.data.total}
          </span>
          <button
            type="button"
            disabled={offset + 20 >= list.data.total}
            onClick={() => setQ('offset', String(offset + 20))}
          >
            Next
          </button>
        </nav>
      ) : null}
    </>
  );
}
