/** Payments list: search, the API's filters (projects and payers picked by name) and page, all kept in the URL. */
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useApiQuery } from '../query';
import { useSession } from '../session';
import { Field, Page, Select } from '../ui/kit';
import { QueryView } from '../ui/states';
import { Pager, TRANSACTION_STATUSES, TransactionTable } from './payments-shared';
import { PayerPicker, ProjectPicker } from './pickers';

const FILTERS = ['q', 'status', 'project_id', 'user_id', 'page', 'page_size'] as const;

/** Search by payment id, reference, description or payer email; applied after a short pause in typing. */
function SearchBox({ value, onSearch }: { value: string; onSearch(v: string): void }) {
  const [text, setText] = useState(value);
  const latest = useRef(onSearch);
  latest.current = onSearch;
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const t = window.setTimeout(() => latest.current(text.trim()), 300);
    return () => window.clearTimeout(t);
  }, [text, value]);
  return (
    <Field
      label="Search payments"
      name="q"
      type="search"
      value={text}
      onChange={setText}
      hint="Payment id, reference, description or payer email."
    />
  );
}

export function PaymentsPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const query = Object.fromEntries(FILTERS.map((k) => [k, params.get(k)]));
  const list = useApiQuery('/transactions', { query, poll: 5000, keep: true });

  const setFilter = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'page') next.delete('page');
    setParams(next);
  };

  return (
    <Page
      title="Payments"
      actions={
        can('payments.write') ? (
          <Link className="button" to="/payments/new">
            Create payment link
          </Link>
        ) : null
      }
    >
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <SearchBox value={params.get('q') ?? ''} onSearch={(v) => setFilter('q', v)} />
        <Select
          label="Status"
          name="status"
          value={params.get('status') ?? ''}
          onChange={(v) => setFilter('status', v)}
          options={['', ...TRANSACTION_STATUSES]}
        />
        <ProjectPicker
          label="Project"
          value={params.get('project_id') ?? ''}
          onChange={(v) => setFilter('project_id', v)}
        />
        <PayerPicker
          label="Payer"
          name="user_id"
          value={params.get('user_id') ?? ''}
          onChange={(v) => setFilter('user_id', v)}
        />
        <Select
          label="Per page"
          name="page_size"
          value={params.get('page_size') ?? '10'}
          onChange={(v) => setFilter('page_size', v === '10' ? '' : v)}
          options={['10', '25', '50', '100', '200']}
        />
      </form>
      <QueryView q={list} what="the payments" lines={Number(params.get('page_size') ?? 10)}>
        {(data) => (
          <>
            <TransactionTable rows={data.transactions} />
            <Pager p={data.pagination} go={(n) => setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
