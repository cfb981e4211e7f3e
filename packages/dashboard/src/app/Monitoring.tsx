/** Transaction monitoring queue: list with the API's filters in the URL, a decision's reasons, and review with a note. */
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Field, money, Page, Select, useAction, useLoad, when } from '../ui/kit';
import { LinkTable, ScrollRegion, urlPicker, useUrlFilters } from '../ui/list';
import { Pager } from './payments-shared';

const DECISIONS = ['APPROVED', 'IN_REVIEW', 'DECLINED', 'AWAITING_USER'];
const FINAL = ['APPROVED', 'DECLINED'];
const REMEDIATION_TYPES = ['source_of_funds', 'identity_reverification', 'wallet_ownership'];

interface Monitored {
  monitored_transaction_id: string;
  client_reference: string;
  direction: string;
  amount: string;
  currency: string;
  occurred_at: string;
  counterparty: { name: string; country?: string | null; account_identifier?: string | null };
  decision: string;
  decision_reason: string | null;
  score: number;
  rule_hits: { rule_id: string; name: string; type: string; action: string; score: number }[];
  sanctions_hit: boolean;
  sanctions_matches: { list: string; matched_name: string; match_score: number }[];
  remediation_status: string | null;
  remediation_url: string | null;
  reviews: { decision: string; note: string; actor_type: string; reviewed_at: string }[];
}

interface MonitoredPage {
  monitored_transactions: Monitored[];
  page: number;
  page_size: number;
  total: number;
  total_pages: number;
}

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
  const { api } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useLoad(
    () => api.get<MonitoredPage>('/monitoring/transactions', { query: f.query }),
    [api, f.key],
  );
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
      <ErrorBox error={list.error} />
      {list.data ? (
        <>
          <LinkTable
            rows={list.data.monitored_transactions}
            rowKey={(m) => m.monitored_transaction_id}
            href={(m) => `/monitoring/${m.monitored_transaction_id}`}
            empty="No monitored transactions."
            columns={[
              { label: 'Reference', cell: (m) => m.client_reference },
              { label: 'Amount', cell: (m) => `${money(m.amount, m.currency)} ${m.direction}` },
              { label: 'Counterparty', cell: (m) => m.counterparty.name },
              { label: 'Decision', cell: (m) => <Badge value={m.decision} /> },
              { label: 'Score', cell: (m) => m.score },
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

export function MonitoringDetailPage() {
  const { id = '' } = useParams();
  const { api, can } = useSession();
  const data = useLoad(() => api.get<Monitored>(`/monitoring/transactions/${id}`), [api, id]);
  const m = data.data;
  return (
    <Page title={m ? `Monitored ${m.client_reference}` : 'Monitored transaction'}>
      <p>
        <Link to="/monitoring">Back to monitoring</Link>
      </p>
      <ErrorBox error={data.error} />
      {m ? (
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
              {m.counterparty.name}
              {m.counterparty.account_identifier ? ` · ${m.counterparty.account_identifier}` : ''}
            </dd>
            <dt>Occurred</dt>
            <dd>{when(m.occurred_at)}</dd>
            <dt>Sanctions</dt>
            <dd>
              {m.sanctions_hit
                ? m.sanctions_matches.map((s) => `${s.matched_name} (${s.list}, ${s.match_score})`).join('; ')
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
            <ScrollRegion label="Rule hits">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Rule</th>
                    <th scope="col">Type</th>
                    <th scope="col">Action</th>
                    <th scope="col">Score</th>
                  </tr>
                </thead>
                <tbody>
                  {m.rule_hits.map((h) => (
                    <tr key={h.rule_id}>
                      <td>{h.name}</td>
                      <td>{h.type}</td>
                      <td>{h.action}</td>
                      <td>{h.score}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
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
          {can('monitoring.review') && !FINAL.includes(m.decision) ? (
            <ReviewForm m={m} done={data.reload} />
          ) : null}
        </>
      ) : data.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}

function ReviewForm({ m, done }: { m: Monitored; done(): void }) {
  const { api } = useSession();
  const options = ['APPROVED', 'DECLINED', 'AWAITING_USER'].filter((d) => d !== m.decision);
  const [decision, setDecision] = useState(options[0]!);
  const [note, setNote] = useState('');
  const [remediation, setRemediation] = useState(REMEDIATION_TYPES[0]!);
  const [clear, setClear] = useState(false);
  const act = useAction();
  const noteId = useId();
  const clearId = useId();
  return (
    <form
      aria-labelledby="review-title"
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          await api.post(`/monitoring/transactions/${m.monitored_transaction_id}/review`, {
            decision,
            note,
            ...(decision === 'AWAITING_USER' ? { remediation_type: remediation } : {}),
            ...(m.sanctions_hit && decision === 'APPROVED' ? { clear_sanctions_match: clear } : {}),
          });
          setNote('');
          done();
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
