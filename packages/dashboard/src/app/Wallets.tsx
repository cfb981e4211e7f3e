/** Wallet screening (docs/guides/screening.md): screened wallets with their result (filters in the URL), and screening a wallet. */
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { type ApiBody, type ApiData, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, Page, Select, when } from '../ui/kit';
import { urlPicker, useUrlFilters } from '../ui/list';
import { QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';

export type Wallet = ApiData<'get', '/screening/wallets/{wallet_id}'>;
type ScreenBody = ApiBody<'post', '/screening/wallet'>;

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
] as const satisfies readonly ScreenBody['chain'][];
export const RISK_LEVELS = [
  'unknown',
  'low',
  'medium',
  'high',
  'severe',
] as const satisfies readonly NonNullable<Wallet['risk_level']>[];
const OWNERSHIP = [
  'unverified',
  'pending',
  'verified',
  'failed',
] as const satisfies readonly Wallet['ownership_status'][];

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
  const { can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/screening/wallets', { query: f.query, keep: true });
  const pick = urlPicker(f);
  return (
    <Page title="Wallets">
      {can('screening.write') ? <ScreenWalletForm /> : null}
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
      <QueryView q={list} what="the screened wallets">
        {(data) => (
          <>
            <DataTable
              rows={data.wallets}
              rowKey={(w) => w.wallet_id}
              rowLink={(w) => `/wallets/${w.wallet_id}`}
              empty="No screened wallets yet. Screening rates a crypto wallet address for sanctions and risk before you pay it or accept from it."
              guide={{ slug: 'screening', title: 'Screening guide' }}
              columns={[
                { header: 'Wallet', cell: (w) => w.label || w.address },
                { header: 'Chain', cell: (w) => w.chain },
                {
                  header: 'Risk',
                  cell: (w) => (
                    <RiskCell level={w.risk_level} score={w.risk_score} sanctions={w.sanctions_hit} />
                  ),
                },
                { header: 'Ownership', cell: (w) => <Badge value={w.ownership_status} /> },
                { header: 'Last screened', cell: (w) => when(w.last_screened_at) },
              ]}
            />
            <Pager p={data} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

function ScreenWalletForm() {
  const [chain, setChain] = useState<ScreenBody['chain']>('ethereum');
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  const [monitor, setMonitor] = useState(false);
  const [result, setResult] = useState<ApiData<'post', '/screening/wallet'> | null>(null);
  const act = useApiActions({ invalidate: ['/screening'] });
  const monitorId = useId();
  return (
    <form
      aria-labelledby="screen-title"
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          setResult(null);
          const s = await act.call('post', '/screening/wallet', {
            body: {
              chain,
              address: address.trim(),
              ...(label.trim() ? { label: label.trim() } : {}),
              monitor,
            },
          });
          setResult(s);
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
