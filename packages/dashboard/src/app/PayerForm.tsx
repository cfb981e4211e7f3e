/** Add a payer (POST /kyc/users): the person a payment link is made out to. */
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useApiMutation } from '../query';
import { useSession } from '../session';
import { Page } from '../ui/kit';
import { FormError, fieldErrorsOf, Input } from './form-kit';

const EMPTY = { email: '', first_name: '', last_name: '', external_ref: '' };

/** The payer form, on its own page (onboarding) or inline above the customers' list. */
export function PayerForm({
  submitLabel,
  inline = false,
  onCreated,
}: {
  submitLabel: string;
  inline?: boolean;
  onCreated?: () => void;
}) {
  const [f, setF] = useState(EMPTY);
  const set = (k: keyof typeof f) => (v: string) => setF((cur) => ({ ...cur, [k]: v }));
  const create = useApiMutation('post', '/kyc/users', { invalidate: ['/kyc/lists', '/kyc/users'] });
  const errs = fieldErrorsOf(create.error);
  return (
    <form
      aria-label="Payer"
      className={inline ? 'inline' : undefined}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          {
            body: {
              email: f.email.trim(),
              first_name: f.first_name.trim(),
              ...(f.last_name.trim() ? { last_name: f.last_name.trim() } : {}),
              ...(f.external_ref.trim() ? { external_ref: f.external_ref.trim() } : {}),
            },
          },
          {
            onSuccess: () => {
              setF(EMPTY);
              onCreated?.();
            },
          },
        );
      }}
    >
      <Input
        label="Email"
        name="email"
        type="email"
        value={f.email}
        onChange={set('email')}
        error={errs.email}
        required
      />
      <Input
        label="First name"
        name="first_name"
        value={f.first_name}
        onChange={set('first_name')}
        error={errs.first_name}
        required
      />
      <Input
        label="Last name (optional)"
        name="last_name"
        value={f.last_name}
        onChange={set('last_name')}
        error={errs.last_name}
      />
      <Input
        label="Your reference (optional)"
        name="external_ref"
        value={f.external_ref}
        onChange={set('external_ref')}
        error={errs.external_ref}
        hint={inline ? undefined : 'Your own id for this person, for example a customer number.'}
      />
      <FormError error={create.error} fields={errs} />
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Adding…' : submitLabel}
      </button>
    </form>
  );
}

export function PayerFormPage() {
  const { can } = useSession();
  const navigate = useNavigate();
  if (!can('kyc.users.write')) return <Page title="New payer">Your role cannot add payers.</Page>;
  return (
    <Page title="New payer">
      <p>
        <Link to="/customers">Back to customers</Link>
      </p>
      <PayerForm submitLabel="Add payer" onCreated={() => navigate('/customers')} />
    </Page>
  );
}
