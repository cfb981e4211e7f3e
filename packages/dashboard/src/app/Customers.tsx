/** Customers: users (KYC) and business customers (KYB), their status, and verification links. */
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, CopyId, ErrorBox, Field, Page, Select } from '../ui/kit';
import { QueryView } from '../ui/states';
import { DataTable, QueryTable } from '../ui/table';
import { PayerForm } from './PayerForm';
import { Pager } from './payments-shared';

export function CustomersPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const kyc = params.get('kyc_status') ?? '';
  const q = params.get('q') ?? '';
  const page = params.get('page') ?? '1';
  const users = useApiQuery('/kyc/lists', { query: { kyc_status: kyc, q, page }, keep: true });
  const businesses = useApiQuery('/kyb/businesses', {
    query: { page_size: 50 },
    enabled: can('kyb.businesses.read'),
  });
  const [link, setLink] = useState<string | null>(null);
  const act = useApiActions({ invalidate: ['/kyc', '/kyb'] });
  const write = can('kyc.users.write');
  const setQ = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'page') next.delete('page');
    setParams(next);
  };
  const showLink = (r: { verification_url: string } | undefined) => r && setLink(r.verification_url);

  return (
    <Page title="Customers">
      <h2>Payers</h2>
      {write ? <PayerForm submitLabel="Add payer" inline /> : null}
      <form className="filters" aria-label="User filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Search" name="q" value={q} onChange={(v) => setQ('q', v)} />
        <Select
          label="KYC status"
          name="kyc_status"
          value={kyc}
          onChange={(v) => setQ('kyc_status', v)}
          options={['', 'none', 'pending', 'approved', 'rejected']}
        />
      </form>
      <ErrorBox error={act.error} />
      {link ? (
        <p role="status">
          Verification link: <a href={link}>{link}</a>
        </p>
      ) : null}
      <QueryView q={users} what="the users">
        {(data) => (
          <>
            <DataTable
              rows={data.users}
              rowKey={(u) => u.user_id}
              columns={[
                { header: 'Email', cell: (u) => u.email },
                { header: 'User ID', cell: (u) => <CopyId value={u.user_id} what="payer" /> },
                { header: 'Name', cell: (u) => [u.first_name, u.last_name].filter(Boolean).join(' ') || '—' },
                { header: 'KYC', cell: (u) => <Badge value={u.kyc_status} /> },
                {
                  header: 'Actions',
                  cell: (u) =>
                    write ? (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() =>
                          act
                            .send('post', '/kyc/users/{user_id}/verification-link', {
                              path: { user_id: u.user_id },
                              body: {},
                            })
                            .then(showLink)
                        }
                      >
                        Verification link
                      </button>
                    ) : null,
                },
              ]}
            />
            <Pager p={data.pagination} go={(n) => setQ('page', String(n))} />
          </>
        )}
      </QueryView>
      <h2>Business customers</h2>
      {can('kyb.businesses.read') ? (
        <QueryTable
          q={businesses}
          what="the business customers"
          rows={(data) => data.business_customers}
          rowKey={(b) => b.business_customer_id}
          columns={[
            { header: 'Company', cell: (b) => b.company_name },
            { header: 'Country', cell: (b) => b.country },
            { header: 'KYB', cell: (b) => <Badge value={b.kyb_status} /> },
            {
              header: 'Actions',
              cell: (b) =>
                can('kyb.businesses.write') ? (
                  <button
                    type="button"
                    className="secondary"
                    onClick={() =>
                      act
                        .send('post', '/kyb/businesses/{business_customer_id}/verification-link', {
                          path: { business_customer_id: b.business_customer_id },
                          body: {},
                        })
                        .then(showLink)
                    }
                  >
                    Verification link
                  </button>
                ) : null,
            },
          ]}
        />
      ) : null}
    </Page>
  );
}
