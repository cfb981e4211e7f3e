/** One webhook delivery (GET /webhooks/deliveries/{id}) with its attempts, and retry: where a "delivery failed" notification leads. */
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, useAction, useLoad, when } from '../ui/kit';

interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
}
interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
  outcome: string;
}

export function WebhookDeliveryPage() {
  const { id = '' } = useParams();
  const { api, can } = useSession();
  const data = useLoad(async () => {
    const [d, a] = await Promise.all([
      api.get<Delivery>(`/webhooks/deliveries/${id}`),
      api.get<{ attempts: Attempt[] }>(`/webhooks/deliveries/${id}/attempts`),
    ]);
    return { d, attempts: a.attempts };
  }, [api, id]);
  const act = useAction();
  const d = data.data?.d;
  return (
    <Page title="Webhook delivery">
      <p>
        <Link to="/webhooks">Back to webhooks</Link>
      </p>
      <ErrorBox error={data.error ?? act.error} />
      {d ? (
        <>
          <dl className="facts">
            <dt>Event</dt>
            <dd>
              {d.event_type} <code>{d.event_id}</code>
            </dd>
            <dt>Endpoint</dt>
            <dd>
              <code>{d.url}</code>
            </dd>
            <dt>Status</dt>
            <dd>
              <Badge value={d.status} /> {d.last_error ?? ''}
            </dd>
            <dt>Attempts</dt>
            <dd>{d.attempts}</dd>
            <dt>Next attempt</dt>
            <dd>{when(d.next_attempt_at)}</dd>
            <dt>Created</dt>
            <dd>{when(d.created_at)}</dd>
          </dl>
          {can('webhooks.write') && d.status !== 'succeeded' ? (
            <button
              type="button"
              disabled={act.busy}
              onClick={() =>
                act.run(async () => {
                  await api.post(`/webhooks/deliveries/${id}/retry`);
                  data.reload();
                })
              }
            >
              Retry now
            </button>
          ) : null}
          <h2>Attempts</h2>
          {data.data?.attempts.length ? (
            <ol className="timeline">
              {data.data.attempts.map((a) => (
                <li key={a.attempt}>
                  #{a.attempt} <time dateTime={a.started_at}>{when(a.started_at)}</time>:{' '}
                  {a.response_status ? `HTTP ${a.response_status}` : (a.error ?? 'no answer')} (
                  {a.duration_ms} ms) → <Badge value={a.outcome} />
                </li>
              ))}
            </ol>
          ) : (
            <p className="empty">No attempt yet.</p>
          )}
        </>
      ) : null}
    </Page>
  );
}
