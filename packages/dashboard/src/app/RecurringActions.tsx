/**
 * What a recurring payment's detail page offers, from the API's allowed_actions (docs/guides/recurring.md): pause,
 * resume, cancel, edit, an on-demand run (own idempotency key), retry of a failed run, skipping a
 * scheduled run, and the sandbox simulator. Also the create form.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { newIdempotencyKey } from '../api';
import { type ApiBody, type ApiData, allows, useApiActions } from '../query';
import { useSession } from '../session';
import { ErrorBox, Field, Page, Select } from '../ui/kit';
import { ActButton, ActionForm, CancelWithReason } from './actions';
import { ProjectPayerFields, useProjectPayer } from './pickers';

export type Recurring = ApiData<'get', '/recurring-payments/{definition_id}'>;
export type Run = ApiData<'get', '/recurring-payments/{definition_id}/runs'>['runs'][number];
type CreateBody = ApiBody<'post', '/recurring-payments'>;
type Schedule = NonNullable<CreateBody['schedule']>;
type Limit = CreateBody['mandate']['periodic_limit'];

const OPEN: readonly Recurring['status'][] = ['pending_authorization', 'active', 'paused'];
const BASE = '/recurring-payments/{definition_id}';

export function RecurringActions({ r, runs }: { r: Recurring; runs: Run[] }) {
  const { can, me } = useSession();
  const act = useApiActions({ invalidate: ['/recurring-payments', '/transactions'] });
  const [amount, setAmount] = useState(r.amount ?? '');
  const [description, setDescription] = useState(r.description ?? '');
  const [runAmount, setRunAmount] = useState('');
  const [runKey, setRunKey] = useState(newIdempotencyKey);
  const path = { definition_id: r.definition_id };
  // Pause, resume, cancel and edit follow the recurring payment's allowed_actions, retrying a run and
  // skipping one the run's; collecting on demand depends on the mandate, which the API does not list.
  const write = can('recurring.write') && OPEN.includes(r.status);
  const sandbox = me?.environment === 'sandbox' && can('sandbox.simulate') && OPEN.includes(r.status);
  if (!write && !sandbox) return null;
  const authorized = r.mandate.status === 'authorized';
  const failed = runs.find((x) => allows(x, 'retry'));
  const scheduled = runs.filter((x) => allows(x, 'skip'));
  return (
    <section aria-labelledby="recurring-actions">
      <h2 id="recurring-actions">Actions</h2>
      <ErrorBox error={act.error} />
      {write ? (
        <>
          <div className="actions">
            {allows(r, 'pause') ? (
              <ActButton
                act={act}
                label="Pause"
                fn={() => act.call('post', `${BASE}/pause`, { path, body: {} })}
              />
            ) : null}
            {allows(r, 'resume') ? (
              <ActButton
                act={act}
                label="Resume"
                fn={() => act.call('post', `${BASE}/resume`, { path, body: {} })}
              />
            ) : null}
            {failed ? (
              <ActButton
                act={act}
                label={`Retry run #${failed.sequence}`}
                fn={() =>
                  act.call('post', `${BASE}/retry`, {
                    path,
                    body: { run_id: failed.run_id },
                    idempotencyKey: newIdempotencyKey(),
                  })
                }
              />
            ) : null}
            {scheduled.map((x) => (
              <ActButton
                key={x.run_id}
                act={act}
                label={`Skip run #${x.sequence}`}
                fn={() =>
                  act.call('post', `${BASE}/runs/{run_id}/skip`, {
                    path: { ...path, run_id: x.run_id },
                    body: {},
                  })
                }
              />
            ))}
            {allows(r, 'cancel') ? (
              <CancelWithReason
                act={act}
                label="Cancel recurring payment"
                what="Open runs are canceled and the mandate is revoked at the bank."
                onConfirm={(reason) =>
                  act.call('post', `${BASE}/cancel`, { path, body: reason ? { reason } : {} })
                }
              />
            ) : null}
          </div>
          {allows(r, 'edit') ? (
            <>
              <h3>Change</h3>
              <ActionForm
                title="Change the recurring payment"
                submit="Save changes"
                act={act}
                onSubmit={() =>
                  act.call('patch', BASE, {
                    path,
                    body: {
                      ...(r.schedule && amount.trim() !== (r.amount ?? '') ? { amount: amount.trim() } : {}),
                      description: description.trim() || null,
                    },
                  })
                }
              >
                {r.schedule ? (
                  <Field
                    label="Amount"
                    name="amount"
                    value={amount}
                    onChange={setAmount}
                    inputMode="decimal"
                  />
                ) : null}
                <Field label="Description" name="description" value={description} onChange={setDescription} />
              </ActionForm>
            </>
          ) : null}
          {authorized && r.status === 'active' ? (
            <>
              <h3>Collect now</h3>
              <ActionForm
                title="Collect an on-demand payment"
                submit="Collect"
                act={act}
                onSubmit={async () => {
                  await act.call('post', `${BASE}/runs`, {
                    path,
                    body: { amount: runAmount.trim() },
                    idempotencyKey: runKey,
                  });
                  setRunKey(newIdempotencyKey());
                  setRunAmount('');
                }}
              >
                <Field
                  label="Amount to collect"
                  name="run_amount"
                  value={runAmount}
                  onChange={setRunAmount}
                  inputMode="decimal"
                  required
                />
              </ActionForm>
            </>
          ) : null}
        </>
      ) : null}
      {sandbox ? (
        <div className="actions">
          {r.status === 'pending_authorization' ? (
            <>
              <ActButton
                act={act}
                className="secondary"
                label="Simulate: authorize"
                fn={() =>
                  act.call('post', `/sandbox${BASE}/simulate`, { path, body: { action: 'authorize' } })
                }
              />
              <ActButton
                act={act}
                className="secondary"
                label="Simulate: reject"
                fn={() =>
                  act.call('post', `/sandbox${BASE}/simulate`, {
                    path,
                    body: { action: 'reject_authorization' },
                  })
                }
              />
            </>
          ) : (
            <ActButton
              act={act}
              className="secondary"
              label="Simulate: run next now"
              fn={() => act.call('post', `/sandbox${BASE}/run-next`, { path, body: {} })}
            />
          )}
        </div>
      ) : null}
    </section>
  );
}

const PERIODS = ['day', 'week', 'fortnight', 'month', 'half_year', 'year'];

export function RecurringCreatePage() {
  const { can } = useSession();
  const [f, setF] = useState({
    project_id: '',
    user_id: '',
    currency: 'EUR',
    amount: '',
    description: '',
    reference: '',
    interval: 'month',
    start_date: new Date().toISOString().slice(0, 10),
    max_amount: '',
    limit_amount: '',
    period: 'month',
  });
  const [key, setKey] = useState(newIdempotencyKey);
  const [created, setCreated] = useState<ApiData<'post', '/recurring-payments'> | null>(null);
  const act = useApiActions({ invalidate: ['/recurring-payments'] });
  const pp = useProjectPayer(f);
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  if (!can('recurring.write'))
    return <Page title="Create recurring payment">Your role cannot create recurring payments.</Page>;
  const onDemand = f.interval === '';
  return (
    <Page title="Create recurring payment">
      <p>
        <Link to="/recurring">Back to recurring payments</Link>
      </p>
      <ErrorBox error={pp.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            const r = await act.call('post', '/recurring-payments', {
              body: {
                project_id: pp.projectId,
                user_id: pp.userId,
                currency: f.currency.trim().toUpperCase(),
                ...(onDemand
                  ? {}
                  : {
                      amount: f.amount.trim(),
                      schedule: {
                        interval: f.interval as Schedule['interval'],
                        interval_count: 1,
                        start_date: f.start_date,
                      },
                    }),
                ...(f.description.trim() ? { description: f.description.trim() } : {}),
                ...(f.reference.trim() ? { reference: f.reference.trim() } : {}),
                mandate: {
                  max_amount_per_payment: f.max_amount.trim(),
                  periodic_limit: {
                    amount: f.limit_amount.trim(),
                    period: f.period as Limit['period'],
                    alignment: 'calendar',
                  },
                },
              },
              idempotencyKey: key,
            });
            setCreated(r);
            setKey(newIdempotencyKey());
          });
        }}
      >
        <ProjectPayerFields pp={pp} onProject={set('project_id')} onPayer={set('user_id')} />
        <Field label="Currency" name="currency" value={f.currency} onChange={set('currency')} required />
        <Select
          label="Collect"
          name="interval"
          value={f.interval}
          onChange={set('interval')}
          options={[
            ['week', 'Every week'],
            ['month', 'Every month'],
            ['year', 'Every year'],
            ['', 'On demand only'],
          ]}
        />
        {onDemand ? null : (
          <>
            <Field
              label="Amount"
              name="amount"
              value={f.amount}
              onChange={set('amount')}
              inputMode="decimal"
              required
            />
            <Field
              label="First collection on"
              name="start_date"
              type="date"
              value={f.start_date}
              onChange={set('start_date')}
              required
            />
          </>
        )}
        <Field
          label="Mandate: most per payment"
          name="max_amount_per_payment"
          value={f.max_amount}
          onChange={set('max_amount')}
          inputMode="decimal"
          required
        />
        <Field
          label="Mandate: most per period"
          name="periodic_limit_amount"
          value={f.limit_amount}
          onChange={set('limit_amount')}
          inputMode="decimal"
          required
        />
        <Select
          label="Mandate period"
          name="period"
          value={f.period}
          onChange={set('period')}
          options={PERIODS}
        />
        <Field
          label="Description (optional)"
          name="description"
          value={f.description}
          onChange={set('description')}
        />
        <Field
          label="Statement reference (optional)"
          name="reference"
          value={f.reference}
          onChange={set('reference')}
          hint="Up to 18 characters, shown on the payer's statement"
        />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          Create recurring payment
        </button>
      </form>
      {created ? (
        <div className="success" role="status">
          {created.authorization_url ? (
            <>
              <p>Recurring payment created. The payer authorizes the mandate at:</p>
              <p>
                <a href={created.authorization_url} data-testid="authorization-url">
                  {created.authorization_url}
                </a>
              </p>
            </>
          ) : (
            <p>Recurring payment created.</p>
          )}
          <Link to={`/recurring/${created.definition_id}`}>Open the recurring payment</Link>
        </div>
      ) : null}
    </Page>
  );
}
