/**
 * A screened wallet (its screenings, rescreen, monitoring on/off) and its ownership requests
 * (docs/guides/screening.md): request proof of ownership, follow a request's status, cancel it while open.
 */
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, Select, useAction, useLoad, when } from '../ui/kit';
import { LinkTable, ScrollRegion } from '../ui/list';
import { ActButton } from './actions';
import { useProjectPayer } from './pickers';
import { RiskCell, type Screening, type Wallet } from './Wallets';

interface Ownership {
  request_id: string;
  wallet_id: string;
  chain: string;
  address: string;
  status: string;
  methods: string[];
  method: string | null;
  proof_url: string;
  challenge: { message: string; nonce: string };
  satoshi_test: { deposit_address: string; amount: string; asset: string; expires_at: string } | null;
  attempts_remaining: number;
  failure_reason: string | null;
  delivery: string;
  expires_at: string;
  verified_at: string | null;
  created_at: string;
}

const OPEN = ['pending', 'verifying'];
const METHODS = ['message_signing', 'satoshi_test', 'self_declaration'];

export function WalletDetailPage() {
  const { id = '' } = useParams();
  const { api, can } = useSession();
  const act = useAction();
  const data = useLoad(async () => {
    const w = await api.get<Wallet & { screenings: Screening[] }>(`/screening/wallets/${id}`);
    const o = await api.get<{ ownership_requests: Ownership[] }>('/screening/wallet-ownership/requests', {
      query: { chain: w.chain, q: w.address, page_size: 50 },
    });
    return { w, requests: o.ownership_requests.filter((r) => r.wallet_id === w.wallet_id) };
  }, [api, id]);
  const w = data.data?.w;
  return (
    <Page title={w ? `Wallet ${w.label ?? ''}`.trim() : 'Wallet'}>
      <p>
        <Link to="/wallets">Back to wallets</Link>
      </p>
      <ErrorBox error={data.error} />
      {w && data.data ? (
        <>
          <dl className="facts">
            <dt>Address</dt>
            <dd>
              <code>{w.address}</code> on {w.chain}
            </dd>
            <dt>Risk</dt>
            <dd>
              <RiskCell level={w.risk_level} score={w.risk_score} sanctions={w.sanctions_hit} />
            </dd>
            <dt>Last screened</dt>
            <dd>{when(w.last_screened_at)}</dd>
            <dt>Monitored</dt>
            <dd>{w.monitored ? 'Yes, re-screened regularly' : 'No'}</dd>
            <dt>Ownership</dt>
            <dd>
              <Badge value={w.ownership_status} />
              {w.ownership_method ? ` by ${w.ownership_method}` : ''}
            </dd>
          </dl>
          {can('screening.write') ? (
            <div className="actions">
              <ActButton
                act={act}
                label="Screen again"
                done={data.reload}
                fn={() => api.post(`/screening/wallets/${w.wallet_id}/rescreen`, {})}
              />
              <ActButton
                act={act}
                label={w.monitored ? 'Stop monitoring' : 'Monitor this wallet'}
                className="secondary"
                done={data.reload}
                fn={() => api.patch(`/screening/wallets/${w.wallet_id}`, { monitored: !w.monitored })}
              />
            </div>
          ) : null}
          <ErrorBox error={act.error} />
          <h2>Screenings</h2>
          <ScrollRegion label="Screenings">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Result</th>
                  <th scope="col">Categories</th>
                </tr>
              </thead>
              <tbody>
                {w.screenings.map((s) => (
                  <tr key={s.screening_id}>
                    <td>{when(s.created_at)}</td>
                    <td>{s.trigger}</td>
                    <td>
                      {s.status === 'completed' ? (
                        <RiskCell level={s.risk_level} score={s.risk_score} sanctions={s.sanctions_hit} />
                      ) : (
                        <>
                          <Badge value={s.status} /> {s.failure_reason ?? ''}
                        </>
                      )}
                    </td>
                    <td>{(s.categories ?? []).join(', ') || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
          <h2>Ownership requests</h2>
          <LinkTable
            rows={data.data.requests}
            rowKey={(r) => r.request_id}
            href={(r) => `/wallets/ownership/${r.request_id}`}
            empty="No ownership requests."
            columns={[
              { label: 'Requested', cell: (r) => when(r.created_at) },
              { label: 'Status', cell: (r) => <Badge value={r.status} /> },
              { label: 'Methods', cell: (r) => r.methods.join(', ') },
              { label: 'Expires', cell: (r) => when(r.expires_at) },
            ]}
          />
          {can('screening.write') && !['pending', 'verified'].includes(w.ownership_status) ? (
            <OwnershipForm w={w} done={data.reload} />
          ) : null}
        </>
      ) : data.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}

function OwnershipForm({ w, done }: { w: Wallet; done(): void }) {
  const { api } = useSession();
  const pp = useProjectPayer({ project_id: '', user_id: w.user_id ?? '' });
  const [userId, setUserId] = useState('');
  const [methods, setMethods] = useState<string[]>([]);
  const [delivery, setDelivery] = useState('none');
  const act = useAction();
  const ids = useId();
  const payer = userId || pp.userId;
  return (
    <form
      aria-labelledby="ownership-title"
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          await api.post('/screening/wallet-ownership/requests', {
            chain: w.chain,
            address: w.address,
            ...(w.business_customer_id && !w.user_id
              ? { business_customer_id: w.business_customer_id }
              : { user_id: payer }),
            ...(methods.length ? { methods } : {}),
            delivery,
          });
          done();
        });
      }}
    >
      <h2 id="ownership-title">Ask for proof of ownership</h2>
      <ErrorBox error={pp.error} />
      {w.business_customer_id && !w.user_id ? null : (
        <Select
          label="Wallet owner"
          name="user_id"
          value={payer}
          onChange={setUserId}
          options={pp.users.map((u) => [u.user_id, u.email] as [string, string])}
        />
      )}
      <fieldset>
        <legend>Methods (none chosen: the chain's default)</legend>
        {METHODS.map((m) => (
          <div className="check" key={m}>
            <input
              id={`${ids}-${m}`}
              type="checkbox"
              checked={methods.includes(m)}
              onChange={(e) =>
                setMethods(e.target.checked ? [...methods, m] : methods.filter((x) => x !== m))
              }
            />
            <label htmlFor={`${ids}-${m}`}>{m.replace('_', ' ')}</label>
          </div>
        ))}
      </fieldset>
      <Select
        label="Send the proof link"
        name="delivery"
        value={delivery}
        onChange={setDelivery}
        options={[
          ['none', 'Not at all (I share it)'],
          ['email', 'By email to the owner'],
        ]}
      />
      <ErrorBox error={act.error} />
      <button type="submit" disabled={act.busy}>
        Request proof
      </button>
    </form>
  );
}

export function OwnershipRequestPage() {
  const { id = '' } = useParams();
  const { api, can } = useSession();
  const act = useAction();
  const data = useLoad(() => api.get<Ownership>(`/screening/wallet-ownership/requests/${id}`), [api, id]);
  const r = data.data;
  return (
    <Page title="Ownership request">
      <ErrorBox error={data.error} />
      {r ? (
        <>
          <p>
            <Link to={`/wallets/${r.wallet_id}`}>Back to the wallet</Link>
          </p>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <Badge value={r.status} />
              {r.failure_reason ? ` ${r.failure_reason}` : ''}
            </dd>
            <dt>Wallet</dt>
            <dd>
              <code>{r.address}</code> on {r.chain}
            </dd>
            <dt>Methods</dt>
            <dd>
              {r.methods.join(', ')}
              {r.method ? ` (chosen: ${r.method})` : ''}
            </dd>
            <dt>Proof page</dt>
            <dd>
              <a href={r.proof_url} data-testid="proof-url">
                {r.proof_url}
              </a>
            </dd>
            <dt>Message to sign</dt>
            <dd>{r.challenge.message}</dd>
            {r.satoshi_test ? (
              <>
                <dt>Test deposit</dt>
                <dd>
                  {r.satoshi_test.amount} {r.satoshi_test.asset} to{' '}
                  <code>{r.satoshi_test.deposit_address}</code> before {when(r.satoshi_test.expires_at)}
                </dd>
              </>
            ) : null}
            <dt>Attempts left</dt>
            <dd>{r.attempts_remaining}</dd>
            <dt>Expires</dt>
            <dd>{when(r.expires_at)}</dd>
            {r.verified_at ? (
              <>
                <dt>Verified</dt>
                <dd>{when(r.verified_at)}</dd>
              </>
            ) : null}
          </dl>
          {can('screening.write') && OPEN.includes(r.status) ? (
            <ActButton
              act={act}
              className="danger"
              label="Cancel request"
              done={data.reload}
              fn={() => api.post(`/screening/wallet-ownership/requests/${r.request_id}/cancel`, {})}
            />
          ) : null}
          <ErrorBox error={act.error} />
        </>
      ) : data.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}
