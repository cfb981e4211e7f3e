/**
 * One payment: its status timeline, actions by permission, and sandbox simulation. Polls every
 * 2 s until the payment is terminal, so a payment paid in another tab turns successful here.
 */
import { Link, useParams } from 'react-router';
import { allows, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, CopyId, ErrorBox, money, Page, when } from '../ui/kit';
import { QueryError, QueryView } from '../ui/states';
import { ManualReviewNotice, SandboxSimulation } from './PaymentSandbox';
import type { Transaction } from './payments-shared';
import { PaymentRefunds } from './Refunds';

const TERMINAL: readonly Transaction['status'][] = ['success', 'failed', 'expired', 'canceled'];
const live = (t: Transaction | undefined) => (t && TERMINAL.includes(t.status) ? false : 2000);

export function PaymentDetailPage() {
  const { id = '' } = useParams();
  const { me } = useSession();
  const path = { transaction_id: id };
  const tx = useApiQuery('/transactions/{transaction_id}', { path, poll: live });
  // The timeline polls until it holds the terminal event itself (the payment may turn terminal
  // between the two polls).
  const events = useApiQuery('/transactions/{transaction_id}/status-events', {
    path,
    poll: (ev) =>
      ev?.status_events.some((e) => (TERMINAL as readonly string[]).includes(e.status)) ? false : 2000,
  });
  const act = useApiActions({ invalidate: ['/transactions', '/webhooks/deliveries'] });

  return (
    <Page title="Payment">
      <p>
        <Link to="/payments">Back to payments</Link>
      </p>
      <QueryView q={tx} what="the payment" lines={6}>
        {(t) => (
          <>
            <dl className="facts">
              <dt>Amount</dt>
              <dd>{money(t.amount, t.currency)}</dd>
              <dt>Status</dt>
              <dd data-testid="payment-status">
                <Badge value={t.status} />
              </dd>
              <dt>Detail status</dt>
              <dd>{t.provider_status ?? '—'}</dd>
              <dt>Transaction ID</dt>
              <dd>
                <code>{t.transaction_id}</code>
              </dd>
              <dt>Reference</dt>
              <dd>
                <code>{t.ref_id}</code>
              </dd>
              <dt>Description</dt>
              <dd>{t.description ?? '—'}</dd>
              <PayerAndProject t={t} />
              <dt>Checkout link</dt>
              <dd>
                {t.completed_at ? (
                  'Closed: the payment is final'
                ) : (
                  <a href={t.checkout_url} target="_blank" rel="noreferrer">
                    Open checkout
                  </a>
                )}
              </dd>
              <dt>Expires</dt>
              <dd>{when(t.expires_at)}</dd>
            </dl>
            <ManualReviewNotice t={t} sandbox={me?.environment === 'sandbox'} />
            {allows(t, 'refresh_status') || allows(t, 'cancel') ? (
              <div className="actions">
                {allows(t, 'refresh_status') ? (
                  <button
                    type="button"
                    className="secondary"
                    disabled={act.busy}
                    onClick={() =>
                      act.send('post', '/transactions/{transaction_id}/refresh-status', { path })
                    }
                  >
                    Refresh status
                  </button>
                ) : null}
                {allows(t, 'cancel') ? (
                  <button
                    type="button"
                    className="danger"
                    disabled={act.busy}
                    onClick={() =>
                      act.send('post', '/checkout/intent/{transaction_id}/cancel', { path, body: {} })
                    }
                  >
                    Cancel payment
                  </button>
                ) : null}
              </div>
            ) : null}
            {allows(t, 'simulate') ? (
              <SandboxSimulation
                t={t}
                busy={act.busy}
                simulate={(body) =>
                  act.send('post', '/sandbox/transactions/{transaction_id}/simulate', { path, body })
                }
              />
            ) : null}
            <ErrorBox error={act.error} />
            <PaymentRefunds t={t} />
            <h2>Timeline</h2>
            <QueryError error={events.error} what="the payment's timeline" />
            <ol className="timeline">
              {events.data?.status_events.map((e) => (
                <li key={e.status_event_id}>
                  <Badge value={e.status} /> {e.provider_status ? <span>({e.provider_status})</span> : null}{' '}
                  <time dateTime={e.occurred_at}>{when(e.occurred_at)}</time>
                  {e.reason ? <span> — {e.reason}</span> : null}
                </li>
              ))}
            </ol>
            <PaymentDeliveries transactionId={id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

/** Who pays and for which project: names where the caller may read them, the ids always. */
function PayerAndProject({ t }: { t: Transaction }) {
  const { can } = useSession();
  const project = useApiQuery('/projects/{project_id}', {
    path: { project_id: t.project_id },
    enabled: can('projects.read'),
  });
  const user = useApiQuery('/kyc/users/{user_id}', {
    path: { user_id: t.user_id ?? '' },
    enabled: t.user_id !== null && can('kyc.users.read'),
  });
  return (
    <>
      <dt>Project</dt>
      <dd>
        {project.data ? `${project.data.project_name} ` : null}
        <CopyId value={t.project_id} what="project" />
      </dd>
      <dt>Payer</dt>
      <dd>
        {t.user_id ? (
          <>
            {user.data ? `${user.data.email} ` : null}
            <CopyId value={t.user_id} what="payer" />
          </>
        ) : t.business_customer_id ? (
          <>
            Business <CopyId value={t.business_customer_id} what="business payer" />
          </>
        ) : (
          '—'
        )}
      </dd>
    </>
  );
}

/** The webhook deliveries of this payment's events. */
function PaymentDeliveries({ transactionId }: { transactionId: string }) {
  const { can } = useSession();
  const list = useApiQuery('/webhooks/deliveries', {
    query: { transaction_id: transactionId },
    poll: 5000,
    enabled: can('webhooks.read'),
  });
  if (!can('webhooks.read')) return null;
  return (
    <>
      <h2>Webhook deliveries</h2>
      <QueryError error={list.error} what="the webhook deliveries" />
      {list.data?.deliveries.length ? (
        <ul className="plain">
          {list.data.deliveries.map((d) => (
            <li key={d.delivery_id}>
              <Link to={`/webhooks/deliveries/${d.delivery_id}`}>
                {d.event_type}
                {d.event_status ? ` (${d.event_status})` : ''}
              </Link>{' '}
              of <time dateTime={d.created_at}>{when(d.created_at)}</time> → {d.url}:{' '}
              <Badge value={d.status} /> ({d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'}
              {d.last_response_status ? `, last HTTP ${d.last_response_status}` : ''})
            </li>
          ))}
        </ul>
      ) : (
        <p className="empty">No deliveries for this payment.</p>
      )}
    </>
  );
}
