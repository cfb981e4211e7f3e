/**
 * What a payment schedule's detail page offers, by permission and status (docs/guides/schedules.md): cancel
 * the schedule, change its description, per instalment issue now / reissue / cancel / change
 * (scheduled only), the sandbox `overdue` simulation; and the create form (a plan).
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { newIdempotencyKey } from '../api';
import { type ApiBody, type ApiData, allows, useApiActions } from '../query';
import { useSession } from '../session';
import { ErrorBox, Field, Page, Select } from '../ui/kit';
import { ActButton, ActionForm, CancelWithReason } from './actions';
import { ProjectPayerFields, useProjectPayer } from './pickers';

export type Schedule = ApiData<'get', '/payment-schedules/{schedule_id}'>;
type Instalment = Schedule['instalments'][number];
type Plan = NonNullable<ApiBody<'post', '/payment-schedules'>['plan']>;

const OPEN: readonly Schedule['status'][] = ['active', 'past_due'];

/** The buttons of one instalment row (nothing when the role or status allows none). */
const INSTALMENT = '/payment-schedules/{schedule_id}/instalments/{instalment_id}';

export function InstalmentActions({ s, i }: { s: Schedule; i: Instalment }) {
  const act = useApiActions({ invalidate: ['/payment-schedules', '/transactions'] });
  if (!OPEN.includes(s.status)) return null;
  const path = { schedule_id: s.schedule_id, instalment_id: i.instalment_id };
  const context = `instalment #${i.sequence}`;
  const b = (text: string, op: '/issue-now' | '/reissue' | '/cancel') => (
    <ActButton
      act={act}
      label={text}
      context={context}
      fn={() => act.call('post', `${INSTALMENT}${op}`, { path, body: {} })}
    />
  );
  return (
    <div className="actions">
      {allows(i, 'issue_now') ? b('Issue now', '/issue-now') : null}
      {allows(i, 'reissue') ? b('Reissue', '/reissue') : null}
      {allows(i, 'cancel') ? b('Cancel', '/cancel') : null}
      {allows(i, 'simulate_overdue') ? (
        <ActButton
          act={act}
          className="secondary"
          label="Simulate overdue"
          context={context}
          fn={() => act.call('post', `/sandbox${INSTALMENT}/simulate`, { path, body: { action: 'overdue' } })}
        />
      ) : null}
      <ErrorBox error={act.error} />
    </div>
  );
}

export function ScheduleActions({ s }: { s: Schedule }) {
  const act = useApiActions({ invalidate: ['/payment-schedules', '/transactions'] });
  const [description, setDescription] = useState(s.description ?? '');
  const scheduled = s.instalments.filter((i) => allows(i, 'edit'));
  const [pick, setPick] = useState('');
  const [amount, setAmount] = useState('');
  const [due, setDue] = useState('');
  if (!allows(s, 'edit') && !allows(s, 'cancel')) return null;
  const path = { schedule_id: s.schedule_id };
  const chosen = scheduled.find((i) => i.instalment_id === pick) ?? scheduled[0];
  return (
    <section aria-labelledby="schedule-actions">
      <h2 id="schedule-actions">Actions</h2>
      <ErrorBox error={act.error} />
      {allows(s, 'cancel') ? (
        <div className="actions">
          <CancelWithReason
            act={act}
            label="Cancel schedule"
            what="Open instalments are canceled; paid ones stay paid."
            onConfirm={(reason) =>
              act.call('post', '/payment-schedules/{schedule_id}/cancel', {
                path,
                body: reason ? { reason } : {},
              })
            }
          />
        </div>
      ) : null}
      {allows(s, 'edit') ? (
        <ActionForm
          title="Change the description"
          submit="Save description"
          act={act}
          onSubmit={() =>
            act.call('patch', '/payment-schedules/{schedule_id}', {
              path,
              body: { description: description.trim() || null },
            })
          }
        >
          <Field label="Description" name="description" value={description} onChange={setDescription} />
        </ActionForm>
      ) : null}
      {chosen ? (
        <>
          <h3>Change a scheduled instalment</h3>
          <ActionForm
            title="Change a scheduled instalment"
            submit="Save instalment"
            act={act}
            onSubmit={async () => {
              await act.call('patch', INSTALMENT, {
                path: { ...path, instalment_id: chosen.instalment_id },
                body: {
                  ...(amount.trim() ? { amount: amount.trim() } : {}),
                  ...(due ? { due_date: due } : {}),
                },
              });
              setAmount('');
              setDue('');
            }}
          >
            <Select
              label="Instalment"
              name="instalment"
              value={chosen.instalment_id}
              onChange={setPick}
              options={scheduled.map((i) => [i.instalment_id, `#${i.sequence} due ${i.due_date}`] as const)}
            />
            <Field label="New amount" name="amount" value={amount} onChange={setAmount} inputMode="decimal" />
            <Field label="New due date" name="due_date" type="date" value={due} onChange={setDue} />
          </ActionForm>
        </>
      ) : null}
    </section>
  );
}

export function ScheduleCreatePage() {
  const { can } = useSession();
  const [f, setF] = useState({
    project_id: '',
    user_id: '',
    currency: 'EUR',
    description: '',
    total_amount: '',
    count: '3',
    interval: 'month',
    start_date: new Date().toISOString().slice(0, 10),
    delivery: 'email',
  });
  const [key, setKey] = useState(newIdempotencyKey);
  const [created, setCreated] = useState<{ schedule_id: string } | null>(null);
  const act = useApiActions({ invalidate: ['/payment-schedules'] });
  const pp = useProjectPayer(f);
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  if (!can('schedules.write'))
    return <Page title="Create payment schedule">Your role cannot create payment schedules.</Page>;
  return (
    <Page title="Create payment schedule">
      <p>
        <Link to="/schedules">Back to payment schedules</Link>
      </p>
      <ErrorBox error={pp.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            const s = await act.call('post', '/payment-schedules', {
              body: {
                project_id: pp.projectId,
                user_id: pp.userId,
                currency: f.currency.trim().toUpperCase(),
                ...(f.description.trim() ? { description: f.description.trim() } : {}),
                plan: {
                  total_amount: f.total_amount.trim(),
                  count: Number(f.count),
                  interval: f.interval as Plan['interval'],
                  start_date: f.start_date,
                },
                delivery: f.delivery as 'email' | 'none',
              },
              idempotencyKey: key,
            });
            setCreated(s);
            setKey(newIdempotencyKey());
          });
        }}
      >
        <ProjectPayerFields pp={pp} onProject={set('project_id')} onPayer={set('user_id')} />
        <Field label="Currency" name="currency" value={f.currency} onChange={set('currency')} required />
        <Field
          label="Total amount"
          name="total_amount"
          value={f.total_amount}
          onChange={set('total_amount')}
          inputMode="decimal"
          required
        />
        <Field
          label="Number of instalments"
          name="count"
          type="number"
          value={f.count}
          onChange={set('count')}
          inputMode="numeric"
          required
        />
        <Select
          label="Every"
          name="interval"
          value={f.interval}
          onChange={set('interval')}
          options={['week', 'month']}
        />
        <Field
          label="First due date"
          name="start_date"
          type="date"
          value={f.start_date}
          onChange={set('start_date')}
          required
        />
        <Select
          label="Send the links"
          name="delivery"
          value={f.delivery}
          onChange={set('delivery')}
          options={[
            ['email', 'By email to the payer'],
            ['none', 'Not at all (I share them)'],
          ]}
        />
        <Field
          label="Description (optional)"
          name="description"
          value={f.description}
          onChange={set('description')}
        />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          Create schedule
        </button>
      </form>
      {created ? (
        <div className="success" role="status">
          <p>Payment schedule created.</p>
          <Link to={`/schedules/${created.schedule_id}`}>Open the payment schedule</Link>
        </div>
      ) : null}
    </Page>
  );
}
