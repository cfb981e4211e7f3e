/**
 * Travel-rule transfers (docs/guides/travel-rule.md): list with the API's filters in the URL, a transfer's
 * parties, VASPs and counterparty wallet, and the merchant actions its `allowed_actions` list: repair
 * the fields the counterparty asked for, proceed without confirmation, accept or reject an inbound
 * transfer, report the tx hash, cancel.
 */
import { type ReactNode, useState } from 'react';
import { Link, useParams } from 'react-router';
import { type ApiBody, type ApiData, allows, useApiActions, useApiQuery } from '../query';
import { shortId } from '../ui/format';
import { Badge, ErrorBox, Field, Page, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { FilterSelect } from '../ui/listing';
import { QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';
import { CHAINS } from './Wallets';

type Transfer = ApiData<'get', '/travel-rule/transfers/{transfer_id}'>;
/**
 * The IVMS101 party as the repair request types it; the response documents the party as an open
 * object, so it is read through this shape (every field optional but `type`).
 */
type Party = NonNullable<ApiBody<'patch', '/travel-rule/transfers/{transfer_id}'>['originator']>;
const party = (p: Transfer['originator']) => p as Party;

const STATUSES = [
  'not_required',
  'pending',
  'awaiting_counterparty',
  'awaiting_ownership',
  'counterparty_not_reachable',
  'needs_repair',
  'awaiting_review',
  'accepted',
  'rejected',
  'completed',
  'canceled',
  'expired',
] as const satisfies readonly Transfer['status'][];
/** IVMS101 party fields that are objects, by their parts. */
const OBJECT_FIELDS: Record<string, string[]> = {
  address: ['street', 'city', 'postal_code', 'country'],
  national_identifier: ['type', 'value', 'country'],
};
/** The actions this page offers (`simulate` is the sandbox API's, not a merchant's). */
const ACTIONS = ['repair', 'proceed', 'accept', 'reject', 'tx_hash', 'cancel'] as const;

const nameOf = (raw: Transfer['originator']) => {
  const p = party(raw);
  return p.type === 'legal'
    ? (p.legal_name ?? '—')
    : [p.first_name, p.last_name].filter(Boolean).join(' ') || '—';
};

const FILTERS = ['q', 'status', 'direction', 'asset', 'chain', 'page', 'page_size'] as const;

export function TravelRulePage() {
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/travel-rule/transfers', { query: f.query, keep: true });
  return (
    <Page title="Travel rule">
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Field
          label="Search"
          name="q"
          value={f.value('q')}
          hint="Reference, party name, wallet address or tx hash"
          onChange={(v) => f.setFilter('q', v)}
        />
        <FilterSelect f={f} name="status" label="Status" options={STATUSES} />
        <FilterSelect f={f} name="direction" label="Direction" options={['outbound', 'inbound']} />
        <FilterSelect f={f} name="chain" label="Chain" options={CHAINS} />
        <Field
          label="Asset"
          name="asset"
          value={f.value('asset')}
          onChange={(v) => f.setFilter('asset', v.toUpperCase())}
        />
      </form>
      <QueryView q={list} what="the travel-rule transfers">
        {(data) => (
          <>
            <DataTable
              rows={data.transfers}
              rowKey={(t) => t.transfer_id}
              rowLink={(t) => `/travel-rule/${t.transfer_id}`}
              empty="No travel-rule transfers yet. A travel-rule transfer exchanges originator and beneficiary details with the counterparty provider of a crypto transfer."
              guide={{ slug: 'travel-rule', title: 'Travel rule guide' }}
              columns={[
                { header: 'Transfer', cell: (t) => t.client_reference ?? shortId(t.transfer_id) },
                { header: 'Amount', cell: (t) => `${t.amount} ${t.asset} ${t.direction}` },
                {
                  header: 'Counterparty',
                  cell: (t) => nameOf(t.direction === 'outbound' ? t.beneficiary : t.originator),
                },
                { header: 'Status', cell: (t) => <Badge value={t.status} /> },
                { header: 'Created', cell: (t) => when(t.created_at) },
              ]}
            />
            <Pager p={data} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

function PartyFacts({ title, p: raw }: { title: string; p: Transfer['originator'] }) {
  const p = party(raw);
  return (
    <>
      <h2>{title}</h2>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{nameOf(raw)}</dd>
        <dt>Wallet address</dt>
        <dd>{p.account_number ? <code>{p.account_number}</code> : '—'}</dd>
        {p.address ? (
          <>
            <dt>Address</dt>
            <dd>
              {p.address.street}, {p.address.postal_code} {p.address.city}, {p.address.country}
            </dd>
          </>
        ) : null}
      </dl>
    </>
  );
}

export function TravelRuleDetailPage() {
  const { id = '' } = useParams();
  const data = useApiQuery('/travel-rule/transfers/{transfer_id}', { path: { transfer_id: id } });
  const t = data.data;
  const fact = (label: string, value: ReactNode) => (
    <>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </>
  );
  return (
    <Page title={t ? `Transfer ${t.client_reference ?? shortId(t.transfer_id)}` : 'Travel-rule transfer'}>
      <p>
        <Link to="/travel-rule">Back to travel rule</Link>
      </p>
      <QueryView q={data} what="the transfer" lines={6}>
        {(t) => (
          <>
            <dl className="facts">
              {fact(
                'Status',
                <>
                  <Badge value={t.status} /> {t.status_reason ?? ''}
                </>,
              )}
              {fact('Direction', t.direction)}
              {fact('Amount', `${t.amount} ${t.asset} on ${t.chain}`)}
              {fact(
                'Value',
                t.fiat_value
                  ? `${t.fiat_value.amount} ${t.fiat_value.currency}${t.threshold_applies ? '' : ' (below the threshold)'}`
                  : '— (not given by the network)',
              )}
              {fact(
                'Counterparty VASP',
                t.beneficiary_vasp ? `${t.beneficiary_vasp.name} (${t.beneficiary_vasp.country})` : '—',
              )}
              {fact(
                'Counterparty wallet',
                <>
                  <code>{t.counterparty_wallet.address}</code>
                  {t.counterparty_wallet.hosted === false ? ' (unhosted)' : ''}
                  {t.counterparty_wallet.risk_level ? `, risk ${t.counterparty_wallet.risk_level}` : ''}
                </>,
              )}
              {t.name_match ? fact('Name match', t.name_match) : null}
              {t.repair_fields?.length ? fact('Fields to repair', t.repair_fields.join(', ')) : null}
              {t.justification ? fact('Justification', t.justification) : null}
              {t.tx_hash ? fact('Transaction hash', <code>{t.tx_hash}</code>) : null}
              {t.expires_at ? fact('Answer expected by', when(t.expires_at)) : null}
              {fact('Created', when(t.created_at))}
              {t.accepted_at ? fact('Accepted', when(t.accepted_at)) : null}
              {t.completed_at ? fact('Completed', when(t.completed_at)) : null}
            </dl>
            {ACTIONS.some((a) => allows(t, a)) ? <TransferActions t={t} /> : null}
            <PartyFacts title="Originator" p={t.originator} />
            <PartyFacts title="Beneficiary" p={t.beneficiary} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

const TRANSFER = '/travel-rule/transfers/{transfer_id}';

/** One small form per action the status allows; each posts, then the transfer refetches. */
function TransferActions({ t }: { t: Transfer }) {
  const act = useApiActions({ invalidate: ['/travel-rule'] });
  const [text, setText] = useState<Record<string, string>>({});
  const val = (k: string) => text[k] ?? '';
  const set = (k: string) => (v: string) => setText({ ...text, [k]: v });
  const path = { transfer_id: t.transfer_id };
  const post = (fn: () => Promise<unknown>) =>
    act.run(async () => {
      await fn();
      setText({});
    });
  const form = (title: string, submit: () => void, children: ReactNode) => (
    <form
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h3>{title}</h3>
      {children}
    </form>
  );
  // A repair field naming an object (originator.address) is asked for by its parts.
  const repairPaths = (t.repair_fields ?? []).flatMap((p) => {
    const leaf = p.split('.').at(-1);
    const parts = leaf ? OBJECT_FIELDS[leaf] : undefined;
    return parts ? parts.map((k) => `${p}.${k}`) : [p];
  });
  const current = (path: string) => {
    let at: unknown = t;
    for (const k of path.split('.')) at = (at as Record<string, unknown> | undefined)?.[k];
    return typeof at === 'string' ? at : '';
  };
  const repairVal = (p: string) => text[p] ?? current(p);
  /** A form of one required field, posted by `send(value)`. */
  const oneField = (
    title: string,
    key: string,
    label: string,
    button: string,
    send: (value: string) => Promise<unknown>,
  ) =>
    form(
      title,
      () => post(() => send(val(key).trim())),
      <>
        <Field label={label} name={key} value={val(key)} onChange={set(key)} required />
        <button type="submit" disabled={act.busy}>
          {button}
        </button>
      </>,
    );
  const repair = () =>
    act.run(async () => {
      const body: { originator?: Party; beneficiary?: Party } = {};
      for (const field of repairPaths) {
        const [side, ...rest] = field.split('.') as ['originator' | 'beneficiary', ...string[]];
        body[side] ??= structuredClone(party(t[side]));
        let at = body[side] as Record<string, unknown>;
        for (const k of rest.slice(0, -1)) {
          if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
          at = at[k] as Record<string, unknown>;
        }
        at[rest.at(-1)!] = repairVal(field).trim();
      }
      await act.call('patch', TRANSFER, { path, body });
      setText({});
    });

  return (
    <section aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      {allows(t, 'repair') && t.repair_fields?.length
        ? form(
            'Repair the transfer',
            repair,
            <>
              {repairPaths.map((p) => (
                <Field key={p} label={p} name={p} value={repairVal(p)} onChange={set(p)} required />
              ))}
              <button type="submit" disabled={act.busy}>
                Send corrected data
              </button>
            </>,
          )
        : null}
      {allows(t, 'proceed')
        ? oneField(
            'Proceed without confirmation',
            'justification',
            'Justification',
            'Proceed',
            (justification) => act.call('post', `${TRANSFER}/proceed`, { path, body: { justification } }),
          )
        : null}
      {allows(t, 'accept') ? (
        <button
          type="button"
          disabled={act.busy}
          onClick={() => post(() => act.call('post', `${TRANSFER}/accept`, { path, body: {} }))}
        >
          Accept transfer
        </button>
      ) : null}
      {allows(t, 'reject')
        ? oneField('Reject the transfer', 'reason', 'Reason', 'Reject transfer', (reason) =>
            act.call('post', `${TRANSFER}/reject`, { path, body: { reason } }),
          )
        : null}
      {allows(t, 'tx_hash')
        ? oneField(
            'Report the on-chain transaction',
            'tx_hash',
            'Transaction hash',
            'Save transaction hash',
            (tx_hash) => act.call('post', `${TRANSFER}/tx-hash`, { path, body: { tx_hash } }),
          )
        : null}
      <ErrorBox error={act.error} />
      {allows(t, 'cancel') ? (
        <p>
          <button
            type="button"
            className="danger"
            disabled={act.busy}
            onClick={() => post(() => act.call('post', `${TRANSFER}/cancel`, { path, body: {} }))}
          >
            Cancel transfer
          </button>
        </p>
      ) : null}
    </section>
  );
}
