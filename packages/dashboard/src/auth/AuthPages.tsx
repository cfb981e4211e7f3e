/** Sign-in, registration and email verification: the only pages loaded before signing in. */
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../session';
import { ErrorBox, Field, useAction } from '../ui/kit';
import { LoginForm } from './LoginForm';

function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth">
      <div className="card">
        <p className="brand">Payments dashboard</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** Set by the server when mail is written as files (a local try without SMTP_URL). */
function localMailDir(): string | null {
  return document.querySelector('meta[name="svc-local-mail-dir"]')?.getAttribute('content') ?? null;
}

export function SignInPage() {
  const { loadMe } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  return (
    <AuthCard title="Sign in">
      {params.get('verified') ? <p role="status">Email verified. You can sign in now.</p> : null}
      <LoginForm
        initialEmail={params.get('email') ?? ''}
        onDone={async () => {
          await loadMe();
          navigate(params.get('next') ?? '/', { replace: true });
        }}
      />
      <p>
        New here? <Link to="/register">Create an account</Link>
      </p>
    </AuthCard>
  );
}

export function RegisterPage() {
  const { api } = useSession();
  const navigate = useNavigate();
  const [f, setF] = useState({ email: '', password: '', company_name: '', full_name: '' });
  const act = useAction();
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  return (
    <AuthCard title="Create your account">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            await api.post('/auth/register', { ...f, email: f.email.trim() });
            navigate(`/verify-email?email=${encodeURIComponent(f.email.trim())}`);
          });
        }}
      >
        <Field
          label="Company name"
          name="company_name"
          value={f.company_name}
          onChange={set('company_name')}
          required
          autoComplete="organization"
        />
        <Field
          label="Your full name"
          name="full_name"
          value={f.full_name}
          onChange={set('full_name')}
          required
          autoComplete="name"
        />
        <Field
          label="Work email"
          name="email"
          type="email"
          value={f.email}
          onChange={set('email')}
          required
          autoComplete="email"
        />
        <Field
          label="Password"
          name="password"
          type="password"
          value={f.password}
          onChange={set('password')}
          required
          autoComplete="new-password"
          hint="At least 8 characters."
        />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          Create account
        </button>
      </form>
      <p>
        Already registered? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthCard>
  );
}

export function VerifyEmailPage() {
  const { api } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [code, setCode] = useState('');
  const [resent, setResent] = useState(false);
  const act = useAction();
  return (
    <AuthCard title="Verify your email">
      <p>We sent a 6-digit code to your email address.</p>
      {localMailDir() ? (
        <p className="hint" data-testid="local-mail-hint">
          No mail server is configured here, so the email was saved as a file: open the newest{' '}
          <code>.eml</code> file in <code>{localMailDir()}</code>.
        </p>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            await api.post('/auth/register/verify-email', { email: email.trim(), code: code.trim() });
            navigate(`/sign-in?verified=1&email=${encodeURIComponent(email.trim())}`);
          });
        }}
      >
        <Field
          label="Email"
          name="email"
          type="email"
          value={email}
          onChange={setEmail}
          required
          autoComplete="email"
        />
        <Field
          label="Verification code"
          name="code"
          value={code}
          onChange={setCode}
          required
          inputMode="numeric"
          autoComplete="one-time-code"
        />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          Verify email
        </button>
        <button
          type="button"
          className="link"
          onClick={() =>
            act.run(async () => {
              await api.post('/auth/register/resend-verification', { email: email.trim() });
              setResent(true);
            })
          }
        >
          Send a new code
        </button>
        {resent ? <p role="status">A new code is on its way.</p> : null}
      </form>
    </AuthCard>
  );
}
