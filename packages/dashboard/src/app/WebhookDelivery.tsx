/**
 * The webhook delivery inspector (GET /webhooks/deliveries/{id} and its /attempts): what was sent
 * (body and headers), each attempt with its answer, body excerpt and timing, and a resend. Where a
 * "delivery failed" notification leads.
 */
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, useAction, useLoad, when } from '../ui/kit';
import { Skeleton } from '../ui/states';

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
  body?: string;
  request_headers?: Record<string, string>;
}
interface Attempt {
  attempt: number;
  url: string;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  outcome: string;
  next_attempt_at: string | null;
}

/** The body as sent, indented for reading (it is sent compact). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function WebhookDeliveryPage() {
  const { id = '' } = useParams();
  const { api, can } = useSession();
  const data = useLoad(
    async () => {
      const [d, a] = await Promise.all([
        api.get<Delivery>(`/webhooks/deliveries/${id}`),
        api.get<{ attempts: Attempt[] }>(`/webhooks/deliveries/${id}/attempts`),
      ]);
      return { d, attempts: a.attempts };
    },
    [api, id],
    5000,
  );
  const act = useAction();
  const d = data.data?.d;
  const resend = can('webhooks.write') && d && d.status !== 'pending' && d.status !== 'retrying';
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
              <span data-testid="delivery-status">
                <Badge value={d.status} />
              </span>{' '}
              {d.status === 'succeeded' ? 'Delivered.' : (d.last_error ?? '')}
            </dd>
            <dt>Attempts</dt>
            <dd>{d.attempts}</dd>
            <dt>Next attempt</dt>
            <dd>{when(d.next_attempt_at)}</dd>
            <dt>Created</dt>
            <dd>{when(d.created_at)}</dd>
          </dl>
          {resend ? (
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
              {d.status === 'succeeded' ? 'Resend' : 'Retry now'}
            </button>
          ) : null}
          <h2>Attempts</h2>
          {data.data?.attempts.length ? (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Sent</th>
                    <th scope="col">Answer</th>
                    <th scope="col">Time</th>
                    <th scope="col">Response body (first bytes)</th>
                    <th scope="col">Result</th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.attempts.map((a) => (
                    <tr key={a.attempt} data-testid="attempt">
                      <td>{a.attempt}</td>
                      <td>
                        <time dateTime={a.started_at}>{when(a.started_at)}</time>
                      </td>
                      <td>{a.response_status ? `HTTP ${a.response_status}` : (a.error ?? 'no answer')}</td>
                      <td>{a.duration_ms} ms</td>
                      <td>{a.response_body ? <code>{a.response_body}</code> : '—'}</td>
                      <td>
                        <Badge value={a.outcome} />
                        {a.next_attempt_at ? (
                          <small className="hint"> next {when(a.next_attempt_at)}</small>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="empty">No attempt yet.</p>
          )}
          {d.request_headers ? (
            <>
              <h2>Request headers</h2>
              <dl className="facts" data-testid="delivery-headers">
                {Object.entries(d.request_headers).map(([k, v]) => (
                  <div key={k}>
                    <dt>
                      <code>{k}</code>
                    </dt>
                    <dd>
                      <code>{v}</code>
                    </dd>
                  </div>
                ))}
                <div>
                  <dt>
                    <code>x-svc-timestamp</code>
                  </dt>
                  <dd>Unix seconds when each attempt is sent.</dd>
                </div>
                <div>
                  <dt>
                    <code>x-svc-signature</code>
                  </dt>
                  <dd>
                    <code>sha256=</code>HMAC-SHA256 of <code>timestamp.body</code> with your signing secret,
                    per attempt.
                  </dd>
                </div>
              </dl>
            </>
          ) : null}
          {d.body !== undefined ? (
            <>
              <h2>Payload</h2>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
              <pre className="payload" data-testid="delivery-payload" tabIndex={0}>
                {pretty(d.body)}
              </pre>
            </>
          ) : null}
        </>
      ) : data.error ? null : (
        <Skeleton what="the delivery" lines={5} />
      )}
    </Page>
  );
}
