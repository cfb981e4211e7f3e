/**
 * Refunds: the payment page's refunds with its Refund form (offered from the payment's
 * `allowed_actions`, the amount prefilled with its `refundable_amount`), and the Refunds page with
 * the API's filters kept in the URL. A refund still under way is polled until it ends.
 */
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { newIdempotencyKey, SvcApiError } from '../api';
import { type ApiData, allows, useApiActions, useApiMutation, useApiQuery } from '../query';
import { Badge, ErrorBox, Field, money, Page, Select, when } from '../ui/kit';
import { QueryError, QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager, type Transaction } from './payments-shared';
import { ProjectPicker } from './pickers';

type Refund = ApiData<'get', '/refunds/{refund_id}'>;
const REFUND_STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'canceled'] as const;
const open = (r: Refund) => r.status === 'pending' || r.status === 'processing';

function RefundRows({ rows, showPayment }: { rows: readonly Refund[]; showPayment?: boolean }) {
  const act = useApiActions({ invalidate: ['/refunds', '/transactions'] });
  return (
    <>
      <ErrorBox error={act.error} />
      <DataTable
        rows={rows}
        rowKey={(r) => r.refund_id}
        label="Refunds"
        rowProps={() => ({ 'data-testid': 'refund-row' })}
        columns={[
          { header: 'Amount', cell: (r) => money(r.amount, r.currency) },
          {
            header: 'Status',
            cell: (r) => (
              <>
                <Badge value={r.status} />
                {r.reconciliation_state === 'manual_review_required' ? (
                  <div className="hint" data-testid="refund-review">
                    <Badge value="manual review" /> {r.review_reason} Check with the bank before refunding
                    again.
                  </div>
                ) : null}
                {r.failure_reason ? <div className="hint">{r.failure_reason}</div> : null}
              </>
            ),
          },
          { header: 'Reason', cell: (r) => r.reason ?? '—' },
          showPayment && {
            header: 'Payment',
            cell: (r) => <Link to={`/payments/${r.transaction_id}`}>Open payment</Link>,
          },
          { header: 'Created', cell: (r) => when(r.created_at) },
          {
            header: '',
            cell: (r) => (
              <>
                {allows(r, 'cancel') ? (
                  <button
                    type="button"
                    className="secondary"
                    disabled={act.busy}
                    onClick={() =>
                      act.send('post', '/refunds/{refund_id}/cancel', { path: { refund_id: r.refund_id } })
                    }
                  >
                    Cancel refund
                  </button>
                ) : null}
                {allows(r, 'simulate') ? (
                  <>
                    <button
                      type="button"
                      className="secondary"
                      disabled={act.busy}
                      onClick={() =>
                        act.send('post', '/sandbox/refunds/{refund_id}/simulate', {
                          path: { refund_id: r.refund_id },
                          body: { outcome: 'succeeded' },
                        })
                      }
                    >
                      Simulate: refund settles
                    </button>{' '}
                    <button
                      type="button"
                      className="secondary"
                      disabled={act.busy}
                      onClick={() =>
                        act.send('post', '/sandbox/refunds/{refund_id}/simulate', {
                          path: { refund_id: r.refund_id },
                          body: { outcome: 'failed' },
                        })
                      }
                    >
                      Simulate: refund fails
                    </button>
                  </>
                ) : null}
              </>
            ),
          },
        ]}
      />
    </>
  );
}

/** The network cannot refund this payment (422 at path.transaction_id): say how to refund by hand. */
function ManualRefundNotice({ error }: { error: unknown }) {
  if (!(error instanceof SvcApiError) || error.status !== 422 || !Array.isArray(error.detail)) return null;
  const atPath = error.detail.some((d) => Array.isArray(d.loc) && d.loc[0] === 'path');
  if (!atPath) return null;
  return (
    <p className="notice" data-testid="manual-refund">
      This payment cannot be refunded through the payment network. Refund it by bank transfer to the payer
      from the opco's account, with the payment's reference in the transfer, and keep a note of it on your
      side.
    </p>
  );
}

function RefundForm({ t }: { t: Transaction }) {
  const [amount, setAmount] = useState(t.refundable_amount);
  const [reason, setReason] = useState('');
  const [key, setKey] = useState(newIdempotencyKey);
  const create = useApiMutation('post', '/transactions/{transaction_id}/refunds', {
    invalidate: ['/transactions', '/refunds'],
  });
  return (
    <form
      className="inline-form"
      aria-label="Refund"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          {
            path: { transaction_id: t.transaction_id },
            body: { amount: amount.trim(), ...(reason.trim() ? { reason: reason.trim() } : {}) },
            idempotencyKey: key,
          },
          { onSuccess: () => setKey(newIdempotencyKey()) },
        );
      }}
    >
      <Field
        label={`Amount (${t.currency})`}
        name="refund_amount"
        value={amount}
        onChange={setAmount}
        required
        inputMode="decimal"
        hint={`At most ${money(t.refundable_amount, t.currency)} (what is left to refund).`}
      />
      <Field
        label="Reason"
        name="refund_reason"
        value={reason}
        onChange={setReason}
        placeholder="Returned item"
      />
      <button type="submit" disabled={create.isPending}>
        Refund
      </button>
      <ErrorBox error={create.error} />
      <ManualRefundNotice error={create.error} />
    </form>
  );
}

/** The payment page's section: its sums, the Refund form when the API allows it, its refunds. */
export function PaymentRefunds({ t }: { t: Transaction }) {
  const list = useApiQuery('/transactions/{transaction_id}/refunds', {
    path: { transaction_id: t.transaction_id },
    poll: (d) => (d?.refunds.some(open) ? 2000 : false),
  });
  if (t.status !== 'success' && !list.data?.refunds.length) return null;
  return (
    <section aria-label="Refunds">
      <h2>Refunds</h2>
      <p>
        Refunded {money(t.refunded_amount, t.currency)}; refundable {money(t.refundable_amount, t.currency)}.
      </p>
      {allows(t, 'refund') ? <RefundForm key={t.refundable_amount} t={t} /> : null}
      <QueryError error={list.error} what="the refunds" />
      {list.data?.refunds.length ? (
        <RefundRows rows={list.data.refunds} />
      ) : (
        <p className="empty">No refunds for this payment.</p>
      )}
    </section>
  );
}

const FILTERS = [
  'status',
  'reconciliation_state',
  'project_id',
  'transaction_id',
  'from',
  'to',
  'page',
] as const;
/** A date input (YYYY-MM-DD) as the API's date-time bound. */
const dayStart = (d: string | null) => (d ? `${d}T00:00:00.000Z` : null);

export function RefundsPage() {
  const [params, setParams] = useSearchParams();
  const q = Object.fromEntries(FILTERS.map((k) => [k, params.get(k)]));
  const list = useApiQuery('/refunds', {
    query: { ...q, from: dayStart(q.from ?? null), to: dayStart(q.to ?? null) },
    poll: (d) => (d?.refunds.some(open) ? 2000 : 10_000),
    keep: true,
  });
  const setFilter = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'page') next.delete('page');
    setParams(next);
  };
  return (
    <Page title="Refunds">
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Status"
          name="status"
          value={params.get('status') ?? ''}
          onChange={(v) => setFilter('status', v)}
          options={['', ...REFUND_STATUSES]}
        />
        <Select
          label="Review"
          name="reconciliation_state"
          value={params.get('reconciliation_state') ?? ''}
          onChange={(v) => setFilter('reconciliation_state', v)}
          options={['', 'manual_review_required']}
        />
        <ProjectPicker
          label="Project"
          value={params.get('project_id') ?? ''}
          onChange={(v) => setFilter('project_id', v)}
        />
        <Field
          label="Payment id"
          name="transaction_id"
          value={params.get('transaction_id') ?? ''}
          onChange={(v) => setFilter('transaction_id', v.trim())}
        />
        <Field
          label="From"
          name="from"
          type="date"
          value={params.get('from') ?? ''}
          onChange={(v) => setFilter('from', v)}
        />
        <Field
          label="Before"
          name="to"
          type="date"
          value={params.get('to') ?? ''}
          onChange={(v) => setFilter('to', v)}
        />
      </form>
      <QueryView q={list} what="the refunds" lines={10}>
        {(data) =>
          data.refunds.length ? (
            <>
              <RefundRows rows={data.refunds} showPayment />
              <Pager p={data.pagination} go={(n) => setFilter('page', String(n))} />
            </>
          ) : (
            <p className="empty">
              No refunds match. A refund sends a paid payment's money back to the payer, in full or in part,
              from the payment's page. <a href="/docs/guides/refunds">Refunds guide</a>
            </p>
          )
        }
      </QueryView>
    </Page>
  );
}
