/**
 * The webhook delivery inspector (GET /webhooks/deliveries/{id} and its /attempts): what was sent
 * (body and headers), each attempt with its answer, body excerpt and timing, and a resend. Where a
 * "delivery failed" notification leads.
 */
import { Link, useParams } from 'react-router';
import { allows, useApiMutation, useApiQuery } from '../query';
import { Badge, ErrorBox, Page, when } from '../ui/kit';
import { QueryError, Skeleton } from '../ui/states';
import { DataTable } from '../ui/table';

/** Headers each attempt sets when it is sent, so the delivery record cannot show their values. */
const PER_ATTEMPT: [string, string][] = [
  ['x-svc-timestamp', 'Unix seconds when the attempt is sent.'],
  ['x-svc-signature', 'sha256= HMAC-SHA256 of "timestamp.body" with your signing secret, per attempt.'],
  ['webhook-timestamp', 'The same instant (Standard Webhooks).'],
  ['webhook-signature', 'v1, signature of "id.timestamp.body" (Standard Webhooks), per attempt.'],
];

export function WebhookDeliveryPage() {
  const { id = '' } = useParams();
  const path = { delivery_id: id };
  const delivery = useApiQuery('/webhooks/deliveries/{delivery_id}', { path, poll: 5000 });
  const attempts = useApiQuery('/webhooks/deliveries/{delivery_id}/attempts', { path, poll: 5000 });
  const retry = useApiMutation('post', '/webhooks/deliveries/{delivery_id}/retry', {
    invalidate: ['/webhooks/deliveries'],
  });
  const d = delivery.data;
  return (
    <Page title="Webhook delivery">
      <p>
        <Link to="/webhooks">Back to webhooks</Link>
      </p>
      <ErrorBox error={retry.error} />
      <QueryError
        error={delivery.error ?? attempts.error}
        what="the delivery"
        retry={() => delivery.refetch()}
      />
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
          {allows(d, 'retry') ? (
            <button
              type="button"
              disabled={retry.isPending}
              onClick={() => retry.mutate({ path, body: undefined })}
            >
              {d.status === 'succeeded' ? 'Resend' : 'Retry now'}
            </button>
          ) : null}
          <h2>Attempts</h2>
          {attempts.data?.attempts.length ? (
            <DataTable
              rows={attempts.data.attempts}
              rowKey={(a) => a.attempt}
              rowProps={() => ({ 'data-testid': 'attempt' })}
              columns={[
                { header: '#', cell: (a) => a.attempt },
                { header: 'Sent', cell: (a) => <time dateTime={a.started_at}>{when(a.started_at)}</time> },
                {
                  header: 'Answer',
                  cell: (a) => (a.response_status ? `HTTP ${a.response_status}` : (a.error ?? 'no answer')),
                },
                { header: 'Time', cell: (a) => <>{a.duration_ms} ms</> },
                {
                  header: 'Response body (first bytes)',
                  cell: (a) => (a.response_body ? <code>{a.response_body}</code> : '—'),
                },
                {
                  header: 'Result',
                  cell: (a) => (
                    <>
                      <Badge value={a.outcome} />
                      {a.next_attempt_at ? (
                        <small className="hint"> next {when(a.next_attempt_at)}</small>
                      ) : null}
                    </>
                  ),
                },
              ]}
            />
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
                {PER_ATTEMPT.map(([k, what]) => (
                  <div key={k}>
                    <dt>
                      <code>{k}</code>
                    </dt>
                    <dd>{what}</dd>
                  </div>
                ))}
              </dl>
            </>
          ) : null}
          {d.payload ? (
            <>
              <h2>Payload</h2>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
              <pre className="payload" data-testid="delivery-payload" tabIndex={0}>
                {JSON.stringify(d.payload, null, 2)}
              </pre>
            </>
          ) : null}
        </>
      ) : delivery.error ? null : (
        <Skeleton what="the delivery" lines={5} />
      )}
    </Page>
  );
}
