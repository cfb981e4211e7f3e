/** Customers: users (KYC) and business customers (KYB), their status, and verification links. */
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, Page, Select, useAction, useLoad } from '../ui/kit';
import { Pager, type Pagination } from './payments-shared';

interface User {
  user_id: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  kyc_status: string;
}
interface Business {
  business_customer_id: string;
  company_name: string;
  country: string;
  kyb_status: string;
}

export function CustomersPage() {
  const { api, can } = useSession();
  const [params, setParams] = useSearchParams();
  const kyc = params.get('kyc_status') ?? '';
  const q = params.get('q') ?? '';
  const page = params.get('page') ?? '1';
  const users = useLoad(
    () =>
      api.get<{ users: User[]; pagination: Pagination }>('/kyc/lists', {
        query: { kyc_status: kyc, q, page },
      }),
    [api, kyc, q, page],
  );
  const businesses = useLoad(
    () =>
      can('kyb.businesses.read')
        ? api.get<{ business_customers: Business[] }>('/kyb/businesses', { query: { page_size: 50 } })
        : Promise.resolve({ business_customers: [] }),
    [api],
  );
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [link, setLink] = useState<string | null>(null);
  const act = useAction();
  const write = can('kyc.users.write');
  const setQ = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'page') next.delete('page');
    setParams(next);
  };
  const verificationLink = (path: string) =>
    act.run(async () => {
      const r = await api.post<{ verification_url: string }>(path, {});
      setLink(r.verification_url);
    });

  return (
    <Page title="Customers">
      <h2>Users</h2>
      {write ? (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            act.run(async () => {
              await api.post('/kyc/users', {
                email: email.trim(),
                first_name: firstName.trim() || undefined,
              });
              setEmail('');
              setFirstName('');
              users.reload();
            });
          }}
        >
          <Field label="Email" name="email" type="email" value={email} onChange={setEmail} required />
          <Field label="First name" name="first_name" value={firstName} onChange={setFirstName} />
          <button type="submit" disabled={act.busy}>
            Add user
          </button>
        </form>
      ) : null}
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
      <ErrorBox error={act.error ?? users.error ?? businesses.error} />
      {link ? (
        <p role="status">
          Verification link: <a href={link}>{link}</a>
        </p>
      ) : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">KYC</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.data?.users.map((u) => (
              <tr key={u.user_id}>
                <td>{u.email}</td>
                <td>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</td>
                <td>
                  <Badge value={u.kyc_status} />
                </td>
                <td>
                  {write ? (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => verificationLink(`/kyc/users/${u.user_id}/verification-link`)}
                    >
                      Verification link
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {users.data ? <Pager p={users.data.pagination} go={(n) => setQ('page', String(n))} /> : null}
      <h2>Business customers</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Company</th>
              <th scope="col">Country</th>
              <th scope="col">KYB</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {businesses.data?.business_customers.map((b) => (
              <tr key={b.business_customer_id}>
                <td>{b.company_name}</td>
                <td>{b.country}</td>
                <td>
                  <Badge value={b.kyb_status} />
                </td>
                <td>
                  {can('kyb.businesses.write') ? (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() =>
                        verificationLink(`/kyb/businesses/${b.business_customer_id}/verification-link`)
                      }
                    >
                      Verification link
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
