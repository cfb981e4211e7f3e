/** Modal dialogs on the native <dialog> (focus trap, Escape and the top layer come from the browser). */
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { type ApiBody, useApiCall } from '../query';
import { useSession } from '../session';
import { ErrorBox, Field, Select, useAction } from './kit';

export function Modal(props: { title: string; onClose?: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={id}
      onCancel={(e) => {
        if (!props.onClose) e.preventDefault();
        else props.onClose();
      }}
    >
      <h2 id={id}>{props.title}</h2>
      {props.children}
      {props.onClose ? (
        <button type="button" className="secondary" onClick={props.onClose}>
          Close
        </button>
      ) : null}
    </dialog>
  );
}

export type SecurityAction = ApiBody<'post', '/auth/security/request-code'>['action'];

export type SecurityHeaders = Record<'x-security-token' | 'x-security-code' | 'x-security-method', string>;

/**
 * The API's security challenge: request a code (emailed, or the authenticator's current one), then
 * run the protected request with the three X-Security-* headers.
 */
export function SecurityChallenge(props: {
  action: SecurityAction;
  title: string;
  onConfirm(headers: SecurityHeaders): Promise<unknown>;
  onClose(): void;
}) {
  const { me } = useSession();
  const call = useApiCall();
  const [method, setMethod] = useState<'email' | 'totp'>(me?.account?.totp_enrolled ? 'totp' : 'email');
  const [token, setToken] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const act = useAction();

  const requestCode = () =>
    act.run(async () => {
      const r = await call('post', '/auth/security/request-code', { body: { action: props.action, method } });
      setToken(r.challenge_token);
    });

  const confirm = () =>
    act.run(async () => {
      if (!token) return;
      await props.onConfirm({
        'x-security-token': token,
        'x-security-code': code.trim(),
        'x-security-method': method,
      });
      props.onClose();
    });

  return (
    <Modal title={props.title} onClose={props.onClose}>
      {!token ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            requestCode();
          }}
        >
          <p>This action needs a security code.</p>
          <Select
            label="Verify with"
            name="method"
            value={method}
            onChange={setMethod}
            options={[
              ['email', 'Code by email'],
              ...(me?.account?.totp_enrolled ? [['totp', 'Authenticator app'] as const] : []),
            ]}
          />
          <button type="submit" disabled={act.busy}>
            {method === 'email' ? 'Email me a code' : 'Continue'}
          </button>
        </form>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm();
          }}
        >
          <Field
            label={method === 'email' ? 'Code from the email' : 'Code from your authenticator app'}
            name="security_code"
            value={code}
            onChange={setCode}
            inputMode="numeric"
            autoComplete="one-time-code"
            required
          />
          <button type="submit" disabled={act.busy}>
            Confirm
          </button>
        </form>
      )}
      <ErrorBox error={act.error} />
    </Modal>
  );
}
