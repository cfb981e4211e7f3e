/** Wallet screening (docs/guides/screening.md): screened wallets with their result (filters in the URL), and screening a wallet. */
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, Page, Select, useAction, useLoad, when } from '../ui/kit';
import { LinkTable, urlPicker, useUrlFilters } from '../ui/list';
import { Pager } from './payments-shared';

export const CHAINS = [
  'bitcoin',
  'litecoin',
  'ethereum',
  'polygon',
  'bsc',
  'arbitrum',
  'optimism',
  'base',
  'avalanche',
  'tron',
  'solana',
];
export const RISK_LEVELS = ['unknown', 'low', 'medium', 'high', 'severe'];
const OWNERSHIP = ['unverified', 'pending', 'verified', 'failed'];

export interface Wallet {
  wallet_id: string;
  chain: string;
  address: string;
  label: string | null;
  user_id: string | null;
  business_customer_id: string | null;
  monitored: boolean;
  risk_level: string | null;
  risk_score: number | null;
  sanctions_hit: boolean | null;
  last_screened_at: string | null;
  ownership_status: string;
  ownership_method: string | null;
}

export interface Screening {
  screening_id: string;
  wallet_id: string;
  status: string;
  risk_level: string | null;
  risk_score: number | null;
  sanctions_hit: boolean | null;
  categories: string[] | null;
  risk_reasons: string[] | null;
  trigger: string;
  cached: boolean;
  failure_reason: string | null;
  created_at: string;
}

/** "high (72)", "pending", "failed: reason": a screening's or wallet's result in one phrase. */
export function RiskCell({
  level,
  score,
  sanctions,
}: {
  level: string | null;
  score: number | null;
  sanctions: boolean | null;
}) {
  if (!level) return <>Not screened</>;
  return (
    <>
      <Badge value={level} /> {score ?? 0}
      {sanctions ? ' · sanctions hit' : ''}
    </>
  );
}

const FILTERS = [
  'q',
  'chain',
  'risk_level',
  'sanctions_hit',
  'ownership_status',
  'monitored',
  'page',
  'page_size',
] as const;

export function WalletsPage() {
  const { api, can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useLoad(
    () =>
      api.get<{ wallets: Wallet[]; page: number; page_size: number; total: number; total_pages: number }>(
        '/screening/wallets',
        { query: f.query },
      ),
    [api, f.key],
  );
  const pick = urlPicker(f);
  return (
    <Page title="Wallets">
      {can('screening.write') ? <ScreenWalletForm done={list.reload} /> : null}
      <h2>Screened wallets</h2>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Field
          label="Search"
          name="q"
          value={f.value('q')}
          hint="Address or label"
          onChange={(v) => f.setFilter('q', v)}
        />
        {pick('chain', 'Chain', CHAINS)}
        {pick('risk_level', 'Risk level', RISK_LEVELS)}
        {pick('sanctions_hit', 'Sanctions hit', ['true', 'false'])}
        {pick('ownership_status', 'Ownership', OWNERSHIP)}
        {pick('monitored', 'Monitored', ['true', 'false'])}
      </form>
      <ErrorBox error={list.error} />
      {list.data ? (
        <>
          <LinkTable
            rows={list.data.wallets}
            rowKey={(w) => w.wallet_id}
            href={(w) => `/wallets/${w.wallet_id}`}
            empty="No screened wallets."
            columns={[
              { label: 'Wallet', cell: (w) => w.label || w.address },
              { label: 'Chain', cell: (w) => w.chain },
              {
                label: 'Risk',
                cell: (w) => (
                  <RiskCell level={w.risk_level} score={w.risk_score} sanctions={w.sanctions_hit} />
                ),
              },
              { label: 'Ownership', cell: (w) => <Badge value={w.ownership_status} /> },
              { label: 'Last screened', cell: (w) => when(w.last_screened_at) },
            ]}
          />
          <Pager p={list.data} go={(n) => f.setFilter('page', String(n))} />
        </>
      ) : list.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}

function ScreenWalletForm({ done }: { done(): void }) {
  const { api } = useSession();
  const [chain, setChain] = useState('ethereum');
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  const [monitor, setMonitor] = useState(false);
  const [result, setResult] = useState<Screening | null>(null);
  const act = useAction();
  const monitorId = useId();
  return (
    <form
      aria-labelledby="screen-title"
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          setResult(null);
          const s = await api.post<Screening>('/screening/wallet', {
            chain,
            address: address.trim(),
            ...(label.trim() ? { label: label.trim() } : {}),
            monitor,
          });
          setResult(s);
          done();
        });
      }}
    >
      <h2 id="screen-title">Screen a wallet</h2>
      <div className="filters">
        <Select label="Chain" name="chain" value={chain} onChange={setChain} options={CHAINS} />
        <Field label="Address" name="address" value={address} onChange={setAddress} required />
        <Field label="Label (optional)" name="label" value={label} onChange={setLabel} />
      </div>
      <div className="check">
        <input
          id={monitorId}
          type="checkbox"
          checked={monitor}
          onChange={(e) => setMonitor(e.target.checked)}
        />
        <label htmlFor={monitorId}>Re-screen it regularly (monitor)</label>
      </div>
      <ErrorBox error={act.error} />
      <button type="submit" disabled={act.busy}>
        {act.busy ? 'Working…' : 'Screen wallet'}
      </button>
      {result ? (
        <div className="success" role="status" data-testid="screening-result">
          <p>
            Screening {result.status}:{' '}
            {result.status === 'failed' ? (
              result.failure_reason
            ) : result.status === 'pending' ? (
              'the result arrives shortly'
            ) : (
              <RiskCell
                level={result.risk_level}
                score={result.risk_score}
                sanctions={result.sanctions_hit}
              />
            )}
          </p>
          <Link to={`/wallets/${result.wallet_id}`}>Open the wallet</Link>
        </div>
      ) : null}
    </form>
  );
}
