/** Transaction monitoring queue: list with the API's filters in the URL, a decision's reasons, and review with a note. */
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { type ApiBody, type ApiData, allows, useApiActions, useApiQuery } from '../query';
import { Badge, ErrorBox, Field, money, Page, Select, when } from '../ui/kit';
import { urlPicker, useUrlFilters } from '../ui/list';
import { QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';

type Monitored = ApiData<'get', '/monitoring/transactions/{monitored_transaction_id}'>;
type Review = ApiBody<'post', '/monitoring/transactions/{monitored_transaction_id}/review'>;

const DECISIONS = [
  'APPROVED',
  'IN_REVIEW',
  'DECLINED',
  'AWAITING_USER',
] as const satisfies readonly Monitored['decision'][];
/** The review's decision each of the row's `allowed_actions` stands for. */
const REVIEW_ACTIONS = [
  ['approve', 'APPROVED'],
  ['decline', 'DECLINED'],
  ['request_remediation', 'AWAITING_USER'],
] as const satisfies readonly (readonly [Monitored['allowed_actions'][number], Review['decision']])[];
const REMEDIATION_TYPES = [
  'source_of_funds',
  'identity_reverification',
  'wallet_ownership',
] as const satisfies readonly NonNullable<Review['remediation_type']>[];

/** The API documents the counterparty as an open object: show what is there. */
const text = (v: unknown) => (v === undefined || v === null || v === '' ? '—' : String(v));

const FILTERS = [
  'q',
  'decision',
  'direction',
  'sanctions_hit',
  'remediation_status',
  'page',
  'page_size',
] as const;

export function MonitoringPage() {
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/monitoring/transactions', { query: f.query, keep: true });
  const pick = urlPicker(f);
  return (
    <Page title="Monitoring">
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Field
          label="Search"
          name="q"
          value={f.value('q')}
          hint="Reference, counterparty, account or customer"
          onChange={(v) => f.setFilter('q', v)}
        />
        {pick('decision', 'Decision', DECISIONS)}
        {pick('direction', 'Direction', ['inbound', 'outbound'])}
        {pick('sanctions_hit', 'Sanctions hit', ['true', 'false'])}
        {pick('remediation_status', 'Remediation', ['pending', 'submitted', 'expired'])}
      </form>
      <QueryView q={list} what="the monitored transactions">
        {(data) => (
          <>
            <DataTable
              rows={data.monitored_transactions}
              rowKey={(m) => m.monitored_transaction_id}
              rowLink={(m) => `/monitoring/${m.monitored_transaction_id}`}
              empty="No monitored transactions yet. Submitted transactions are checked against your monitoring policy and held for review when a rule hits."
              guide={{ slug: 'monitoring', title: 'Monitoring guide' }}
              columns={[
                { header: 'Reference', cell: (m) => m.client_reference },
                { header: 'Amount', cell: (m) => `${money(m.amount, m.currency)} ${m.direction}` },
                { header: 'Counterparty', cell: (m) => text(m.counterparty.name) },
                { header: 'Decision', cell: (m) => <Badge value={m.decision} /> },
                { header: 'Score', cell: (m) => m.score },
              ]}
            />
            <Pager p={data} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

export function MonitoringDetailPage() {
  const { id = '' } = useParams();
  const data = useApiQuery('/monitoring/transactions/{monitored_transaction_id}', {
    path: { monitored_transaction_id: id },
  });
  const m = data.data;
  return (
    <Page title={m ? `Monitored ${m.client_reference}` : 'Monitored transaction'}>
      <p>
        <Link to="/monitoring">Back to monitoring</Link>
      </p>
      <QueryView q={data} what="the monitored transaction" lines={6}>
        {(m) => (
          <>
            <dl className="facts">
              <dt>Decision</dt>
              <dd>
                <Badge value={m.decision} /> {m.decision_reason ?? ''}
              </dd>
              <dt>Score</dt>
              <dd>{m.score}</dd>
              <dt>Amount</dt>
              <dd>
                {money(m.amount, m.currency)} {m.direction}
              </dd>
              <dt>Counterparty</dt>
              <dd>
                {text(m.counterparty.name)}
                {m.counterparty.account_identifier ? ` · ${text(m.counterparty.account_identifier)}` : ''}
              </dd>
              <dt>Occurred</dt>
              <dd>{when(m.occurred_at)}</dd>
              <dt>Sanctions</dt>
              <dd>
                {m.sanctions_hit
                  ? m.sanctions_matches
                      .map((s) => `${s.matched_name} (${s.list}, ${s.match_score})`)
                      .join('; ')
                  : 'No match'}
              </dd>
              {m.remediation_status ? (
                <>
                  <dt>Remediation</dt>
                  <dd>
                    <Badge value={m.remediation_status} />
                  </dd>
                </>
              ) : null}
            </dl>
            <h2>Rule hits</h2>
            {m.rule_hits.length === 0 ? (
              <p className="empty">No rule matched.</p>
            ) : (
              <DataTable
                rows={m.rule_hits}
                rowKey={(h) => h.rule_id}
                region="Rule hits"
                columns={[
                  { header: 'Rule', cell: (h) => h.name },
                  { header: 'Type', cell: (h) => h.type },
                  { header: 'Action', cell: (h) => h.action },
                  { header: 'Score', cell: (h) => h.score },
                ]}
              />
            )}
            <h2>Reviews</h2>
            {m.reviews.length === 0 ? (
              <p className="empty">Not reviewed yet.</p>
            ) : (
              <ul className="plain">
                {m.reviews.map((r) => (
                  <li key={r.reviewed_at}>
                    <Badge value={r.decision} /> {when(r.reviewed_at)}: {r.note}
                  </li>
                ))}
              </ul>
            )}
            {REVIEW_ACTIONS.some(([a]) => allows(m, a)) ? <ReviewForm key={m.decision} m={m} /> : null}
          </>
        )}
      </QueryView>
    </Page>
  );
}

function ReviewForm({ m }: { m: Monitored }) {
  const options = REVIEW_ACTIONS.filter(([a]) => allows(m, a)).map(([, d]) => d);
  const [decision, setDecision] = useState<Review['decision']>(options[0]!);
  const [note, setNote] = useState('');
  const [remediation, setRemediation] = useState<(typeof REMEDIATION_TYPES)[number]>(REMEDIATION_TYPES[0]);
  const [clear, setClear] = useState(false);
  const act = useApiActions({ invalidate: ['/monitoring'] });
  const noteId = useId();
  const clearId = useId();
  return (
    <form
      aria-labelledby="review-title"
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          await act.call('post', '/monitoring/transactions/{monitored_transaction_id}/review', {
            path: { monitored_transaction_id: m.monitored_transaction_id },
            body: {
              decision,
              note,
              ...(decision === 'AWAITING_USER' ? { remediation_type: remediation } : {}),
              ...(m.sanctions_hit && decision === 'APPROVED' ? { clear_sanctions_match: clear } : {}),
            },
          });
          setNote('');
        });
      }}
    >
      <h2 id="review-title">Review</h2>
      <Select
        label="New decision"
        name="decision"
        value={decision}
        onChange={setDecision}
        options={options}
      />
      {decision === 'AWAITING_USER' ? (
        <Select
          label="Ask the customer for"
          name="remediation_type"
          value={remediation}
          onChange={setRemediation}
          options={REMEDIATION_TYPES}
        />
      ) : null}
      <div className="field">
        <label htmlFor={noteId}>Note</label>
        <textarea
          id={noteId}
          name="note"
          rows={4}
          required
          maxLength={2000}
          value={note}
          onChange={(e) => setNote(e.target.value)}
        />
      </div>
      {m.sanctions_hit && decision === 'APPROVED' ? (
        <div className="field">
          <input id={clearId} type="checkbox" checked={clear} onChange={(e) => setClear(e.target.checked)} />
          <label htmlFor={clearId}>Clear the sanctions match (adds the counterparty to the allowlist)</label>
        </div>
      ) : null}
      <ErrorBox error={act.error} />
      <button type="submit" disabled={act.busy}>
        {act.busy ? 'Working…' : 'Submit review'}
      </button>
    </form>
  );
}
