/**
 * One payment: its status timeline, actions by permission, and sandbox simulation. Polls every
 * 2 s until the payment is terminal, so a payment paid in another tab turns successful here.
 */
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, money, Page, useAction, useLoad, when } from '../ui/kit';
import { ManualReviewNotice, SandboxSimulation } from './PaymentSandbox';
import type { Transaction } from './payments-shared';

interface StatusEvent {
  status_event_id: string;
  previous_status: string | null;
  status: string;
  provider_status: string | null;
  reason: string | null;
  actor_type: string | null;
  occurred_at: string;
}

const TERMINAL = ['success', 'failed', 'expired', 'canceled'];

export function PaymentDetailPage() {
  const { id = '' } = useParams();
  const { api, can, me } = useSession();
  const [live, setLive] = useState(true);
  const tx = useLoad(
    async () => {
      const [t, ev] = await Promise.all([
        api.get<Transaction>(`/transactions/${id}`),
        api.get<{ status_events: StatusEvent[] }>(`/transactions/${id}/status-events`),
      ]);
      if (TERMINAL.includes(t.status)) setLive(false);
      return { t, events: ev.status_events };
    },
    [api, id],
    live ? 2000 : undefined,
  );
  const act = useAction();
  const t = tx.data?.t;
  const doAct = (fn: () => Promise<unknown>) =>
    act.run(async () => {
      await fn();
      setLive(true);
      tx.reload();
    });

  return (
    <Page title="Payment">
      <p>
        <Link to="/payments">Back to payments</Link>
      </p>
      <ErrorBox error={tx.error} />
      {t ? (
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
            <dt>Description</dt>
            <dd>{t.description ?? '—'}</dd>
            <dt>Checkout link</dt>
            <dd>
              {t.checkout_url ? (
                <a href={t.checkout_url} target="_blank" rel="noreferrer">
                  Open checkout
                </a>
              ) : (
                '—'
              )}
            </dd>
            <dt>Expires</dt>
            <dd>{when(t.expires_at)}</dd>
          </dl>
          <ManualReviewNotice t={t} sandbox={me?.environment === 'sandbox'} />
          {!TERMINAL.includes(t.status) ? (
            <div className="actions">
              {can('payments.refresh') ? (
                <button
                  type="button"
                  className="secondary"
                  disabled={act.busy}
                  onClick={() => doAct(() => api.post(`/transactions/${id}/refresh-status`))}
                >
                  Refresh status
                </button>
              ) : null}
              {can('payments.write') ? (
                <button
                  type="button"
                  className="danger"
                  disabled={act.busy}
                  onClick={() => doAct(() => api.post(`/checkout/intent/${id}/cancel`))}
                >
                  Cancel payment
                </button>
              ) : null}
            </div>
          ) : null}
          {me?.environment === 'sandbox' && can('sandbox.simulate') && !TERMINAL.includes(t.status) ? (
            <SandboxSimulation
              t={t}
              busy={act.busy}
              simulate={(body) => doAct(() => api.post(`/sandbox/transactions/${id}/simulate`, body))}
            />
          ) : null}
          <ErrorBox error={act.error} />
          <h2>Timeline</h2>
          <ol className="timeline">
            {tx.data?.events.map((e) => (
              <li key={e.status_event_id}>
                <Badge value={e.status} /> {e.provider_status ? <span>({e.provider_status})</span> : null}{' '}
                <time dateTime={e.occurred_at}>{when(e.occurred_at)}</time>
                {e.reason ? <span> — {e.reason}</span> : null}
              </li>
            ))}
          </ol>
          <PaymentDeliveries transactionId={id} />
        </>
      ) : null}
    </Page>
  );
}

interface Delivery {
  delivery_id: string;
  event_type: string;
  status: string;
  attempts: number;
  url: string;
  last_response_status: number | null;
  created_at: string;
}

/** The webhook deliveries of this payment's events. */
function PaymentDeliveries({ transactionId }: { transactionId: string }) {
  const { api, can } = useSession();
  const list = useLoad(
    () =>
      can('webhooks.read')
        ? api.get<{ deliveries: Delivery[] }>('/webhooks/deliveries', {
            query: { transaction_id: transactionId },
          })
        : Promise.resolve({ deliveries: [] }),
    [api, transactionId],
    5000,
  );
  if (!can('webhooks.read')) return null;
  return (
    <>
      <h2>Webhook deliveries</h2>
      <ErrorBox error={list.error} />
      {list.data?.deliveries.length ? (
        <ul className="plain">
          {list.data.deliveries.map((d) => (
            <li key={d.delivery_id}>
              {d.event_type} → {d.url}: <Badge value={d.status} /> ({d.attempts} attempts
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
