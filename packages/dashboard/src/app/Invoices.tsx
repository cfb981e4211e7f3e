/** Billing invoices from the platform: list with the API's filters in the URL, detail with lines, PDF download. */
import { Link, useParams } from 'react-router';
import { type ApiData, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, ErrorBox, money, Page, Select, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';

type Invoice = ApiData<'get', '/billing/invoices/{invoice_id}'>;

const STATUSES = [
  'open',
  'overdue',
  'paid',
  'uncollectible',
  'void',
] as const satisfies readonly Invoice['status'][];

const FILTERS = ['status', 'page', 'page_size'] as const;

export function InvoicesPage() {
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/billing/invoices', { query: f.query, keep: true });
  return (
    <Page title="Invoices">
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Status"
          name="status"
          value={f.value('status')}
          onChange={(v) => f.setFilter('status', v)}
          options={['', ...STATUSES]}
        />
      </form>
      <QueryView q={list} what="the invoices">
        {(data) => (
          <>
            <DataTable
              rows={data.invoices}
              rowKey={(i) => i.invoice_id}
              rowLink={(i) => `/invoices/${i.invoice_id}`}
              empty="No invoices yet. Invoices bill your usage of the platform each period."
              guide={{ slug: 'invoices', title: 'Invoices guide' }}
              columns={[
                { header: 'Invoice', cell: (i) => i.number },
                { header: 'Total', cell: (i) => money(i.total, i.currency) },
                { header: 'Status', cell: (i) => <Badge value={i.status} /> },
                { header: 'Due', cell: (i) => i.due_date ?? '—' },
              ]}
            />
            <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

export function InvoiceDetailPage() {
  const { id = '' } = useParams();
  const { api } = useSession();
  const inv = useApiQuery('/billing/invoices/{invoice_id}', { path: { invoice_id: id } });
  const pdf = useApiActions();
  const i = inv.data;

  const download = () =>
    pdf.run(async () => {
      const blob = await api.blob(`/billing/invoices/${id}/pdf`);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `${i?.number ?? id}.pdf`;
      a.click();
      window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });

  return (
    <Page
      title={i ? `Invoice ${i.number}` : 'Invoice'}
      actions={
        i ? (
          <button type="button" onClick={download} disabled={pdf.busy}>
            {pdf.busy ? 'Working…' : 'Download PDF'}
          </button>
        ) : null
      }
    >
      <p>
        <Link to="/invoices">Back to invoices</Link>
      </p>
      <ErrorBox error={pdf.error} />
      <QueryView q={inv} what="the invoice" lines={6}>
        {(i) => (
          <>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <Badge value={i.status} />
              </dd>
              <dt>Period</dt>
              <dd>
                {i.period_start} – {i.period_end}
              </dd>
              <dt>Issued</dt>
              <dd>{i.issue_date ?? '—'}</dd>
              <dt>Due</dt>
              <dd>{i.due_date ?? '—'}</dd>
              <dt>Total</dt>
              <dd>{money(i.total, i.currency)}</dd>
              <dt>Amount due</dt>
              <dd>{money(i.amount_due, i.currency)}</dd>
              {i.paid_at ? (
                <>
                  <dt>Paid</dt>
                  <dd>{when(i.paid_at)}</dd>
                </>
              ) : null}
              {i.void_reason ? (
                <>
                  <dt>Void reason</dt>
                  <dd>{i.void_reason}</dd>
                </>
              ) : null}
              {i.purchase_order_number ? (
                <>
                  <dt>Purchase order</dt>
                  <dd>{i.purchase_order_number}</dd>
                </>
              ) : null}
            </dl>
            {/* Payable until paid or void: an uncollectible invoice still takes the money. */}
            {i.payment_url && i.status !== 'paid' && i.status !== 'void' ? (
              <p>
                <a className="button" href={i.payment_url} target="_blank" rel="noreferrer">
                  Pay this invoice
                </a>
              </p>
            ) : null}
            {i.payment_instructions && i.status !== 'paid' && i.status !== 'void' ? (
              <>
                <h2>Bank transfer</h2>
                <dl className="facts">
                  <dt>Payee</dt>
                  <dd>{i.payment_instructions.payee_name}</dd>
                  <dt>IBAN</dt>
                  <dd>{i.payment_instructions.iban}</dd>
                  <dt>BIC</dt>
                  <dd>{i.payment_instructions.bic}</dd>
                  <dt>Reference</dt>
                  <dd>{i.payment_instructions.reference}</dd>
                </dl>
              </>
            ) : null}
            <h2>Lines</h2>
            <LinesTable invoice={i} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

function LinesTable({ invoice }: { invoice: Invoice }) {
  const lines = invoice.lines ?? [];
  if (lines.length === 0) return <p className="empty">No lines.</p>;
  return (
    <DataTable
      rows={lines}
      rowKey={(l) => l.line_id}
      region="Invoice lines"
      columns={[
        { header: 'Description', cell: (l) => l.description },
        { header: 'Quantity', cell: (l) => l.quantity },
        { header: 'Unit', cell: (l) => money(l.unit_amount, invoice.currency) },
        { header: 'Tax', cell: (l) => money(l.tax_amount, invoice.currency) },
        { header: 'Amount', cell: (l) => money(l.amount, invoice.currency) },
      ]}
    />
  );
}
