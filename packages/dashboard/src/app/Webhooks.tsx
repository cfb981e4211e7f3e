/** Webhooks: main endpoint settings and secret, destinations, deliveries with retry, a test event. */
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, Page, SecretOnce, Select, useAction, useLoad, when } from '../ui/kit';

interface Subscription {
  webhook_url: string | null;
  webhook_enabled: boolean;
  event_types: string[];
  webhook_secret?: string;
}
interface Destination {
  destination_id: string;
  url: string;
  description: string | null;
  enabled: boolean;
  event_types: string[];
  secret?: string;
}
interface Delivery {
  delivery_id: string;
  event_type: string;
  url: string;
  status: string;
  attempts: number;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
}

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
      <Deliveries write={write} />
    </Page>
  );
}

function MainEndpoint({ write, onSecret }: { write: boolean; onSecret(s: string): void }) {
  const { api } = useSession();
  const sub = useLoad(() => api.get<Subscription>('/webhooks/subscription'), [api]);
  const [url, setUrl] = useState<string | null>(null);
  const [sent, setSent] = useState('');
  const act = useAction();
  const shown = url ?? sub.data?.webhook_url ?? '';
  return (
    <>
      <h2>Main endpoint</h2>
      <ErrorBox error={sub.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            const r = await api.put<Subscription>('/webhooks/subscription', {
              webhook_url: shown.trim() || null,
              webhook_enabled: Boolean(shown.trim()),
            });
            if (r.webhook_secret) onSecret(r.webhook_secret);
            sub.reload();
          });
        }}
      >
        <Field label="Webhook URL" name="webhook_url" type="url" value={shown} onChange={setUrl} />
        <p>
          Delivery: <Badge value={sub.data?.webhook_enabled ? 'enabled' : 'disabled'} />
        </p>
        {write ? (
          <div className="actions">
            <button type="submit" disabled={act.busy}>
              Save endpoint
            </button>
            <button
              type="button"
              className="secondary"
              disabled={act.busy}
              onClick={() =>
                act.run(async () => {
                  const r = await api.post<{ webhook_secret: string }>('/webhooks/subscription/secret');
                  onSecret(r.webhook_secret);
                })
              }
            >
              Rotate signing secret
            </button>
            <button
              type="button"
              className="secondary"
              disabled={act.busy}
              onClick={() =>
                act.run(async () => {
                  await api.post('/webhooks/subscription/test');
                  setSent('Test event sent.');
                })
              }
            >
              Send test event
            </button>
          </div>
        ) : null}
      </form>
      {sent ? <p role="status">{sent}</p> : null}
      <ErrorBox error={act.error} />
    </>
  );
}

function Destinations({ write, onSecret }: { write: boolean; onSecret(s: string): void }) {
  const { api } = useSession();
  const list = useLoad(() => api.get<{ destinations: Destination[] }>('/webhooks/destinations'), [api]);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const act = useAction();
  return (
    <>
      <h2>Additional destinations</h2>
      {write ? (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            act.run(async () => {
              const d = await api.post<Destination>('/webhooks/destinations', {
                url: url.trim(),
                event_types: [],
                ...(description.trim() ? { description: description.trim() } : {}),
              });
              if (d.secret) onSecret(d.secret);
              setUrl('');
              setDescription('');
              list.reload();
            });
          }}
        >
          <Field label="Destination URL" name="url" type="url" value={url} onChange={setUrl} required />
          <Field label="Description" name="description" value={description} onChange={setDescription} />
          <button type="submit" disabled={act.busy}>
            Add destination
          </button>
        </form>
      ) : null}
      <ErrorBox error={act.error ?? list.error} />
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
                    act.run(async () => {
                      await api.patch(`/webhooks/destinations/${d.destination_id}`, { enabled: !d.enabled });
                      list.reload();
                    })
                  }
                >
                  {d.enabled ? 'Disable' : 'Enable'}
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() =>
                    act.run(async () => {
                      await api.del(`/webhooks/destinations/${d.destination_id}`);
                      list.reload();
                    })
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

function Deliveries({ write }: { write: boolean }) {
  const { api } = useSession();
  const [params, setParams] = useSearchParams();
  const status = params.get('delivery_status') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const list = useLoad(
    () =>
      api.get<{ deliveries: Delivery[]; total: number; limit: number }>('/webhooks/deliveries', {
        query: { status, offset, limit: 20 },
      }),
    [api, status, offset],
    5000,
  );
  const act = useAction();
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
      <ErrorBox error={act.error ?? list.error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.deliveries.map((d) => (
              <tr key={d.delivery_id} data-testid="delivery-row">
                <td>
                  <Link to={`/webhooks/deliveries/${d.delivery_id}`}>{d.event_type}</Link>
                </td>
                <td>
                  <code>{d.url}</code>
                </td>
                <td>
                  <Badge value={d.status} />
                  {d.last_response_status ? ` HTTP ${d.last_response_status}` : ''}
                  {d.last_error && d.last_error !== `HTTP ${d.last_response_status}` ? (
                    <small className="hint"> {d.last_error}</small>
                  ) : null}
                </td>
                <td>{d.attempts}</td>
                <td>{when(d.created_at)}</td>
                <td>
                  {write && d.status !== 'succeeded' ? (
                    <button
                      type="button"
                      aria-label={`Retry ${d.event_type} delivery`}
                      onClick={() =>
                        act.run(async () => {
                          await api.post(`/webhooks/deliveries/${d.delivery_id}/retry`);
                          list.reload();
                        })
                      }
                    >
                      Retry
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
