/**
 * A payment's manual-review notice, and the sandbox bank simulation: the outcomes a tester means
 * (POST /sandbox/transactions/{id}/simulate {outcome}, walked in order by the sandbox bank, which is
 * also how the sandbox resolves a manual review), with single raw detail statuses under "Advanced".
 */
import { useState } from 'react';
import type { ApiBody } from '../query';
import { Select } from '../ui/kit';
import type { Transaction } from './payments-shared';

type Simulation = ApiBody<'post', '/sandbox/transactions/{transaction_id}/simulate'>;
type Outcome = NonNullable<Simulation['outcome']>;
type RawStatus = NonNullable<Simulation['provider_status']>;

export const SANDBOX_OUTCOMES: [Outcome, string][] = [
  ['success', 'Success: the payer authorizes and the bank pays'],
  ['failed', 'Rejected by the bank'],
  ['insufficient_funds', 'Rejected: insufficient funds'],
  ['canceled', 'Canceled by the payer'],
  ['expired', 'Expired: the payer never authorizes'],
];

const RAW_STATUSES: RawStatus[] = [
  'awaiting_bank_authorization',
  'completed',
  'settled',
  'rejected',
  'rejected_insufficient_funds',
  'expired',
  'canceled',
  'settlement_incomplete',
  'manual_review',
];

export function ManualReviewNotice({ t, sandbox }: { t: Transaction; sandbox: boolean }) {
  if (t.reconciliation_state !== 'manual_review_required') return null;
  return (
    <div className="notice" role="status" data-testid="manual-review">
      <strong>Held for manual review.</strong> {t.status_reason ?? ''} The status stays until the payment
      network reports the payment again in order.{' '}
      {sandbox
        ? 'In the sandbox, resolve it below: pick the outcome the bank should report and the sandbox bank reports its steps in order.'
        : 'You can still cancel the payment.'}
    </div>
  );
}

/** The simulation form (sandbox, `sandbox.simulate`, payment not terminal). */
export function SandboxSimulation({
  t,
  busy,
  simulate,
}: {
  t: Transaction;
  busy: boolean;
  simulate(body: Simulation): void;
}) {
  const [outcome, setOutcome] = useState<Outcome>('success');
  const [raw, setRaw] = useState<RawStatus>('awaiting_bank_authorization');
  const review = t.reconciliation_state === 'manual_review_required';
  return (
    <section className="simulate" aria-label="Sandbox simulation">
      <h2>{review ? 'Sandbox: resolve the manual review' : 'Sandbox: simulate the bank'}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          simulate({ outcome });
        }}
      >
        <Select
          label="Outcome"
          name="outcome"
          value={outcome}
          onChange={setOutcome}
          options={SANDBOX_OUTCOMES}
        />
        <button type="submit" disabled={busy}>
          Simulate outcome
        </button>
      </form>
      <details>
        <summary>Advanced: report one raw detail status</summary>
        <p className="hint">
          The bank reports detail statuses one at a time, as a real network does. A status out of order (for
          example <code>completed</code> while the payment is pending, before the payer authorized at the
          bank) does not move the payment: it is held for manual review and no status webhook is sent. Use the
          outcomes above unless you are testing exactly that; they also resolve a review.
        </p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            simulate({ provider_status: raw });
          }}
        >
          <Select
            label="Detail status"
            name="provider_status"
            value={raw}
            onChange={setRaw}
            options={RAW_STATUSES}
          />
          <button type="submit" className="secondary" disabled={busy}>
            Report status
          </button>
        </form>
      </details>
    </section>
  );
}
