/**
 * A screened wallet (its screenings, rescreen, monitoring on/off) and its ownership requests
 * (docs/guides/screening.md): request proof of ownership, follow a request's status, cancel it while open.
 */
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { type ApiBody, allows, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, Select, when } from '../ui/kit';
import { QueryError, QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { ActButton } from './actions';
import { useProjectPayer } from './pickers';
import { RiskCell, type Wallet } from './Wallets';

type OwnershipBody = ApiBody<'post', '/screening/wallet-ownership/requests'>;
type Method = NonNullable<OwnershipBody['methods']>[number];

const METHODS: readonly Method[] = ['message_signing', 'satoshi_test', 'self_declaration'];

export function WalletDetailPage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const act = useApiActions({ invalidate: ['/screening'] });
  const path = { wallet_id: id };
  const data = useApiQuery('/screening/wallets/{wallet_id}', { path });
  const w = data.data;
  // The requests of this wallet: found by its address, then kept to its id.
  const owned = useApiQuery('/screening/wallet-ownership/requests', {
    query: { chain: w?.chain, q: w?.address, page_size: 50 },
    enabled: !!w,
  });
  const requests = (owned.data?.ownership_requests ?? []).filter((r) => r.wallet_id === id);
  return (
    <Page title={w ? `Wallet ${w.label ?? ''}`.trim() : 'Wallet'}>
      <p>
        <Link to="/wallets">Back to wallets</Link>
      </p>
      <QueryView q={data} what="the wallet" lines={6}>
        {(w) => (
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
                  fn={() => act.call('post', '/screening/wallets/{wallet_id}/rescreen', { path, body: {} })}
                />
                <ActButton
                  act={act}
                  label={w.monitored ? 'Stop monitoring' : 'Monitor this wallet'}
                  className="secondary"
                  fn={() =>
                    act.call('patch', '/screening/wallets/{wallet_id}', {
                      path,
                      body: { monitored: !w.monitored },
                    })
                  }
                />
              </div>
            ) : null}
            <ErrorBox error={act.error} />
            <h2>Screenings</h2>
            <DataTable
              rows={w.screenings}
              rowKey={(s) => s.screening_id}
              region="Screenings"
              columns={[
                { header: 'When', cell: (s) => when(s.created_at) },
                { header: 'Trigger', cell: (s) => s.trigger },
                {
                  header: 'Result',
                  cell: (s) =>
                    s.status === 'completed' ? (
                      <RiskCell level={s.risk_level} score={s.risk_score} sanctions={s.sanctions_hit} />
                    ) : (
                      <>
                        <Badge value={s.status} /> {s.failure_reason ?? ''}
                      </>
                    ),
                },
                { header: 'Categories', cell: (s) => (s.categories ?? []).join(', ') || '—' },
              ]}
            />
            <h2>Ownership requests</h2>
            <QueryError error={owned.error} what="the ownership requests" />
            <DataTable
              rows={requests}
              rowKey={(r) => r.request_id}
              rowLink={(r) => `/wallets/ownership/${r.request_id}`}
              empty="No ownership requests."
              columns={[
                { header: 'Requested', cell: (r) => when(r.created_at) },
                { header: 'Status', cell: (r) => <Badge value={r.status} /> },
                { header: 'Methods', cell: (r) => r.methods.join(', ') },
                { header: 'Expires', cell: (r) => when(r.expires_at) },
              ]}
            />
            {/* The API takes a new request whatever the wallet's ownership status (no allowed_actions
                on wallets): the page asks for one only while none is pending or verified. */}
            {can('screening.write') && !['pending', 'verified'].includes(w.ownership_status) ? (
              <OwnershipForm w={w} />
            ) : null}
          </>
        )}
      </QueryView>
    </Page>
  );
}

function OwnershipForm({ w }: { w: Wallet }) {
  const pp = useProjectPayer({ project_id: '', user_id: w.user_id ?? '' });
  const [userId, setUserId] = useState('');
  const [methods, setMethods] = useState<Method[]>([]);
  const [delivery, setDelivery] = useState<NonNullable<OwnershipBody['delivery']>>('none');
  const act = useApiActions({ invalidate: ['/screening'] });
  const ids = useId();
  const payer = userId || pp.userId;
  return (
    <form
      aria-labelledby="ownership-title"
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          await act.call('post', '/screening/wallet-ownership/requests', {
            body: {
              chain: w.chain as OwnershipBody['chain'],
              address: w.address,
              ...(w.business_customer_id && !w.user_id
                ? { business_customer_id: w.business_customer_id }
                : { user_id: payer }),
              ...(methods.length ? { methods } : {}),
              delivery,
            },
          });
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
          options={pp.users.map((u) => [u.user_id, u.email] as const)}
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
  const act = useApiActions({ invalidate: ['/screening'] });
  const data = useApiQuery('/screening/wallet-ownership/requests/{request_id}', {
    path: { request_id: id },
  });
  return (
    <Page title="Ownership request">
      <QueryView q={data} what="the ownership request" lines={6}>
        {(r) => (
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
            {allows(r, 'cancel') ? (
              <ActButton
                act={act}
                className="danger"
                label="Cancel request"
                fn={() =>
                  act.call('post', '/screening/wallet-ownership/requests/{request_id}/cancel', {
                    path: { request_id: r.request_id },
                    body: {},
                  })
                }
              />
            ) : null}
            <ErrorBox error={act.error} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
