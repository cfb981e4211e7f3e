/**
 * Form pieces for the onboarding forms: inputs that show the API's 422 message for their own
 * field (matched on the error's `loc`), and the summary that says what went wrong in words.
 */
import { type ReactNode, useId } from 'react';
import { detailOf, SvcApiError } from '../api';
import { inWords } from '../ui/words';

/** `{ 'settlement_iban': msg, 'ubos.0.fullName': msg }` from a 422 list; empty for anything else. */
export function fieldErrorsOf(err: unknown): Record<string, string> {
  if (!(err instanceof SvcApiError) || typeof err.detail === 'string') return {};
  const out: Record<string, string> = {};
  for (const e of err.detail) {
    const key = e.loc.filter((p) => p !== 'body').join('.');
    if (key && !out[key]) out[key] = inWords(e.msg);
  }
  return out;
}

/** A 422 is shown next to the fields, with a one-line summary; other errors with the API's own words. */
export function FormError({ error, fields }: { error: unknown; fields: Record<string, string> }) {
  if (!error) return null;
  const n = Object.keys(fields).length;
  return (
    <div role="alert" className="error">
      {n > 0
        ? `${n === 1 ? 'One field needs' : `${n} fields need`} a change before this can be saved: see the messages below the fields.`
        : error instanceof SvcApiError
          ? detailOf(error)
          : error instanceof Error
            ? `Something went wrong: ${error.message}`
            : String(error)}
    </div>
  );
}

export interface InputProps {
  label: string;
  name: string;
  value: string;
  onChange(v: string): void;
  error?: string;
  type?: string;
  required?: boolean;
  hint?: string;
  placeholder?: string;
  inputMode?: 'numeric' | 'decimal' | 'email' | 'text' | 'url';
  autoComplete?: string;
}

/**
 * A labelled field: the control `render` draws (given its id and the ids that describe it), then
 * the hint and the API's message for the field.
 */
function LabelledField(p: {
  label: string;
  hint?: string;
  error?: string;
  render(id: string, describedBy: string | undefined): ReactNode;
}) {
  const id = useId();
  const described = [p.hint ? `${id}-hint` : '', p.error ? `${id}-err` : ''].filter(Boolean).join(' ');
  return (
    <div className={p.error ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{p.label}</label>
      {p.render(id, described || undefined)}
      {p.hint ? (
        <small id={`${id}-hint`} className="hint">
          {p.hint}
        </small>
      ) : null}
      {p.error ? (
        <small id={`${id}-err`} className="field-error">
          {p.error}
        </small>
      ) : null}
    </div>
  );
}

export function Input(p: InputProps) {
  return (
    <LabelledField
      label={p.label}
      hint={p.hint}
      error={p.error}
      render={(id, describedBy) => (
        <input
          id={id}
          name={p.name}
          type={p.type ?? 'text'}
          value={p.value}
          required={p.required}
          placeholder={p.placeholder}
          inputMode={p.inputMode}
          autoComplete={p.autoComplete ?? 'off'}
          aria-invalid={p.error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
    />
  );
}

export function Choice(p: {
  label: string;
  name: string;
  value: string;
  onChange(v: string): void;
  options: readonly (string | [string, string])[];
  error?: string;
  hint?: string;
  size?: number;
}) {
  return (
    <LabelledField
      label={p.label}
      hint={p.hint}
      error={p.error}
      render={(id, describedBy) => (
        <select
          id={id}
          name={p.name}
          value={p.value}
          size={p.size}
          aria-invalid={p.error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => p.onChange(e.target.value)}
        >
          {p.options.map((o) => {
            const [v, l] = typeof o === 'string' ? [o, o] : o;
            return (
              <option key={v} value={v}>
                {l}
              </option>
            );
          })}
        </select>
      )}
    />
  );
}

/** A titled group of fields (a fieldset with its legend). */
export function Group({ title, children, hint }: { title: string; children: ReactNode; hint?: string }) {
  return (
    <fieldset className="group">
      <legend>{title}</legend>
      {hint ? <p className="hint">{hint}</p> : null}
      {children}
    </fieldset>
  );
}
