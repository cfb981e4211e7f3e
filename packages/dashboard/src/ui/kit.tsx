/** Small shared pieces: error display, form fields, status badge, money, async state. */
import { type ReactNode, useCallback, useId, useState } from 'react';
import { detailOf, SvcApiError } from '../api';
import { formatMoney } from './format';

export function messageOf(err: unknown): string {
  if (err instanceof SvcApiError) return detailOf(err);
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Shows the API's own message, announced to screen readers. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div role="alert" className="error">
      {messageOf(error)}
    </div>
  );
}

export function Field(props: {
  label: string;
  name: string;
  type?: string;
  value: string;
  onChange(v: string): void;
  required?: boolean;
  autoComplete?: string;
  inputMode?: 'numeric' | 'decimal' | 'email' | 'text' | 'url';
  hint?: string;
  placeholder?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        required={props.required}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.hint ? (
        <small id={`${id}-hint`} className="hint">
          {props.hint}
        </small>
      ) : null}
    </div>
  );
}

/** A select whose value type is its options' (an SDK enum stays typed through the form). */
export function Select<T extends string = string>(props: {
  label: string;
  name: string;
  value: T;
  onChange(v: NoInfer<T>): void;
  options: readonly (NoInfer<T> | readonly [NoInfer<T>, string])[];
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value as T)}
      >
        {props.options.map((o) => {
          const [v, l] = typeof o === 'string' ? [o, o || 'Any'] : o;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </select>
    </div>
  );
}

export function Badge({ value }: { value: string }) {
  return <span className={`badge badge-${value.replace(/[^a-z_]/gi, '')}`}>{value}</span>;
}

/** An API amount (decimal string) with its currency, every digit kept (ui/format.ts). */
export const money = formatMoney;

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en-GB') : '—');

/** A button that runs an action, shows "Working…" meanwhile and reports the API's error. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}

export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-head">
        <h1 id="page-title">{title}</h1>
        {actions ? <div className="actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** Copies `value` to the clipboard; says "Copied" once it is there. */
function CopyButton(props: { value: string; className?: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className={props.className}
      aria-label={props.label}
      onClick={() =>
        navigator.clipboard?.writeText(props.value).then(
          () => setCopied(true),
          () => undefined,
        )
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** An id the API asks for (project_id, user_id), shown whole with a copy button. */
export function CopyId({ value, what }: { value: string; what: string }) {
  return (
    <span className="copy-id">
      <code>{value}</code>{' '}
      <CopyButton value={value} className="secondary small" label={`Copy the ${what} id ${value}`} />
    </span>
  );
}

/** Shown once: a secret with a copy button and the warning that it will not be shown again. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  return (
    <div className="secret" role="status">
      <p>
        <strong>{label}</strong> — copy it now: it is shown only once.
      </p>
      <code data-testid="secret-value">{value}</code>
      <CopyButton value={value} />
    </div>
  );
}
