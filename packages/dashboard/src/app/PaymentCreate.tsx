/**
 * Create a payment link. One idempotency key per intended payment: kept across retries of the
 * same form (a double click or a network retry returns the same payment), renewed after success.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { newIdempotencyKey } from '../api';
import { useSession } from '../session';
import { ErrorBox, Field, Page, useAction } from '../ui/kit';
import type { Transaction } from './payments-shared';
import { ProjectPayerFields, useProjectPayer } from './pickers';

export function CreatePaymentLinkPage() {
  const { api, can } = useSession();
  const [f, setF] = useState({ amount: '', currency: 'EUR', project_id: '', user_id: '', description: '' });
  const [key, setKey] = useState(newIdempotencyKey);
  const [created, setCreated] = useState<Transaction | null>(null);
  const act = useAction();
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  const pp = useProjectPayer(f);

  if (!can('payments.write'))
    return <Page title="Create payment link">Your role cannot create payment links.</Page>;
  const { projectId, userId } = pp;

  return (
    <Page title="Create payment link">
      <ErrorBox error={pp.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            const t = await api.post<Transaction>(
              '/checkout/paylink',
              {
                amount: f.amount.trim(),
                currency: f.currency.trim().toUpperCase(),
                project_id: projectId,
                user_id: userId,
                ...(f.description.trim() ? { description: f.description.trim() } : {}),
              },
              { idempotencyKey: key },
            );
            setCreated(t);
            setKey(newIdempotencyKey());
          });
        }}
      >
        <Field
          label="Amount"
          name="amount"
          value={f.amount}
          onChange={set('amount')}
          required
          inputMode="decimal"
          placeholder="125.50"
        />
        <Field label="Currency" name="currency" value={f.currency} onChange={set('currency')} required />
        <ProjectPayerFields pp={pp} onProject={set('project_id')} onPayer={set('user_id')} />
        <Field
          label="Description (optional)"
          name="description"
          value={f.description}
          onChange={set('description')}
        />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          Create link
        </button>
      </form>
      {created ? (
        <div className="success" role="status">
          <p>Payment link created.</p>
          <p>
            Checkout link:{' '}
            <a href={created.checkout_url} target="_blank" rel="noreferrer" data-testid="checkout-url">
              {created.checkout_url}
            </a>
          </p>
          <Link to={`/payments/${created.transaction_id}`}>Open the payment</Link>
        </div>
      ) : null}
    </Page>
  );
}
