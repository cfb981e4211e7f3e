/**
 * Create a payment link. One idempotency key per intended payment: kept across retries of the
 * same form (a double click or a network retry returns the same payment), renewed after success.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { newIdempotencyKey, SvcApiError } from '../api';
import { useApiMutation } from '../query';
import { useSession } from '../session';
import { ErrorBox, Field, Page, Select } from '../ui/kit';
import { ProjectPayerFields, useProjectPayer } from './pickers';

/** Where to go when the API's answer names a missing setup step. */
function NextStep({ error }: { error: unknown }) {
  if (!(error instanceof SvcApiError) || typeof error.detail !== 'string') return null;
  if (/callback url/i.test(error.detail))
    return (
      <p className="notice">
        Payers return to your callback URL after paying. <Link to="/settings">Set it in Settings</Link>
      </p>
    );
  if (/sub-tpp/i.test(error.detail))
    return (
      <p className="notice">
        The project's opco is not activated yet. <Link to="/opcos">Check your opcos</Link>
      </p>
    );
  return null;
}

export function CreatePaymentLinkPage() {
  const { can, me } = useSession();
  const currencies = me?.payment_currencies ?? null;
  const [f, setF] = useState({
    amount: '',
    currency: currencies?.[0] ?? 'EUR',
    project_id: '',
    user_id: '',
    description: '',
  });
  const [key, setKey] = useState(newIdempotencyKey);
  const create = useApiMutation('post', '/checkout/paylink', { invalidate: ['/transactions'] });
  const created = create.data;
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
          create.mutate(
            {
              body: {
                amount: f.amount.trim(),
                currency: f.currency.trim().toUpperCase(),
                project_id: projectId,
                user_id: userId,
                ...(f.description.trim() ? { description: f.description.trim() } : {}),
              },
              idempotencyKey: key,
            },
            { onSuccess: () => setKey(newIdempotencyKey()) },
          );
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
        {currencies ? (
          <Select
            label="Currency"
            name="currency"
            value={f.currency}
            onChange={set('currency')}
            options={currencies}
          />
        ) : (
          <Field label="Currency" name="currency" value={f.currency} onChange={set('currency')} required />
        )}
        <ProjectPayerFields pp={pp} onProject={set('project_id')} onPayer={set('user_id')} />
        <Field
          label="Description (optional)"
          name="description"
          value={f.description}
          onChange={set('description')}
        />
        <ErrorBox error={create.error} />
        <NextStep error={create.error} />
        <button type="submit" disabled={create.isPending || !pp.loaded || !projectId || !userId}>
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
