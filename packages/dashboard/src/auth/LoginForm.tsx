/** Email and password, then the MFA step when the API answers otp_pending (email OTP or TOTP). */
import { useState } from 'react';
import type { MfaPending } from '../api';
import { useSession } from '../session';
import { ErrorBox, Field, useAction } from '../ui/kit';

export function LoginForm({
  email: fixedEmail,
  initialEmail,
  onDone,
}: {
  /** Signing in again as this account: the email is not asked. */
  email?: string;
  /** Prefilled but editable (after verifying an email). */
  initialEmail?: string;
  onDone(): void;
}) {
  const { api } = useSession();
  const [email, setEmail] = useState(fixedEmail ?? initialEmail ?? '');
  const [password, setPassword] = useState('');
  const [pending, setPending] = useState<MfaPending | null>(null);
  const [method, setMethod] = useState<'email' | 'totp'>('email');
  const [code, setCode] = useState('');
  const [sent, setSent] = useState(false);
  const act = useAction();

  if (pending)
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            await api.verifyOtp(pending.challenge_token, code.trim(), method);
            onDone();
          });
        }}
      >
        <p>
          {method === 'totp'
            ? 'Enter the 6-digit code from your authenticator app.'
            : 'We emailed you a 6-digit code. Enter it below.'}
        </p>
        <Field
          label={method === 'totp' ? 'Authenticator code' : 'Email code'}
          name="otp_code"
          value={code}
          onChange={setCode}
          inputMode="numeric"
          autoComplete="one-time-code"
          required
        />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          Verify
        </button>
        {method === 'totp' && pending.allowed_mfa_methods.includes('email') ? (
          <button
            type="button"
            className="link"
            onClick={() =>
              act.run(async () => {
                await api.post('/auth/login/challenge/send-email-code', {
                  challenge_token: pending.challenge_token,
                });
                setMethod('email');
                setSent(true);
                setCode('');
              })
            }
          >
            Email me a code instead
          </button>
        ) : null}
        {sent ? <p role="status">Code sent.</p> : null}
      </form>
    );

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          const challenge = await api.login(email.trim(), password);
          if (!challenge) return onDone();
          setMethod(challenge.preferred_mfa_method);
          setPending(challenge);
        });
      }}
    >
      {fixedEmail ? null : (
        <Field
          label="Email"
          name="email"
          type="email"
          value={email}
          onChange={setEmail}
          autoComplete="username"
          required
        />
      )}
      <Field
        label="Password"
        name="password"
        type="password"
        value={password}
        onChange={setPassword}
        autoComplete="current-password"
        required
      />
      <ErrorBox error={act.error} />
      <button type="submit" disabled={act.busy}>
        Sign in
      </button>
    </form>
  );
}
