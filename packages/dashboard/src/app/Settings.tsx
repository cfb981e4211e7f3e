/** Settings: callback URL, MFA client defaults, and my own MFA (authenticator enrollment with a QR code). */
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { useSession } from '../session';
import { ErrorBox, Field, Page, Select, useAction, useLoad } from '../ui/kit';

interface Mfa {
  mfa_enabled: boolean;
  email_enabled: boolean;
  totp_enabled: boolean;
  preferred_method: 'email' | 'totp';
  mfa_use_client_default?: boolean;
}

export function SettingsPage() {
  const { can } = useSession();
  return (
    <Page title="Settings">
      {can('settings.read') ? <CallbackSettings /> : null}
      <MyMfa />
      {can('mfa.defaults.read') ? <MfaDefaults /> : null}
    </Page>
  );
}

function CallbackSettings() {
  const { api, can } = useSession();
  const s = useLoad(() => api.get<{ callback_url: string | null }>('/auth/client/settings'), [api]);
  const [url, setUrl] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const act = useAction();
  const shown = url ?? s.data?.callback_url ?? '';
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          await api.put('/auth/client/settings', { callback_url: shown.trim() || null });
          setSaved(true);
          s.reload();
        });
      }}
    >
      <h2>Checkout return</h2>
      <Field
        label="Callback URL"
        name="callback_url"
        type="url"
        value={shown}
        onChange={(v) => {
          setUrl(v);
          setSaved(false);
        }}
        hint="Payers return here after checkout, with transaction_id appended."
      />
      <ErrorBox error={act.error ?? s.error} />
      {can('settings.write') ? (
        <button type="submit" disabled={act.busy}>
          Save callback URL
        </button>
      ) : null}
      {saved ? <p role="status">Saved.</p> : null}
    </form>
  );
}

function MfaForm(props: { path: string; title: string; save: string; withDefault?: boolean }) {
  const { path, title, withDefault } = props;
  const { api } = useSession();
  const cur = useLoad(() => api.get<Mfa>(path), [api, path]);
  const [draft, setDraft] = useState<Mfa | null>(null);
  const [saved, setSaved] = useState(false);
  const act = useAction();
  const m = draft ?? cur.data;
  if (!m) return <ErrorBox error={cur.error} />;
  const set = (patch: Partial<Mfa>) => {
    setDraft({ ...m, ...patch });
    setSaved(false);
  };
  return (
    <form
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          const { mfa_enabled, email_enabled, totp_enabled, preferred_method, mfa_use_client_default } = m;
          await api.put(path, {
            mfa_enabled,
            email_enabled,
            totp_enabled,
            preferred_method,
            ...(withDefault ? { mfa_use_client_default } : {}),
          });
          setDraft(null);
          setSaved(true);
          cur.reload();
        });
      }}
    >
      <h2>{title}</h2>
      {withDefault ? (
        <label className="check">
          <input
            type="checkbox"
            checked={m.mfa_use_client_default ?? true}
            onChange={(e) => set({ mfa_use_client_default: e.target.checked })}
          />
          Use the company defaults
        </label>
      ) : null}
      <label className="check">
        <input
          type="checkbox"
          checked={m.mfa_enabled}
          onChange={(e) => set({ mfa_enabled: e.target.checked })}
        />
        Require a code at sign-in
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={m.email_enabled}
          onChange={(e) => set({ email_enabled: e.target.checked })}
        />
        Codes by email
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={m.totp_enabled}
          onChange={(e) => set({ totp_enabled: e.target.checked })}
        />
        Authenticator app
      </label>
      <Select
        label="Preferred method"
        name="preferred_method"
        value={m.preferred_method}
        onChange={(v) => set({ preferred_method: v as Mfa['preferred_method'] })}
        options={[
          ['email', 'Email'],
          ['totp', 'Authenticator app'],
        ]}
      />
      <ErrorBox error={act.error} />
      <button type="submit" disabled={act.busy}>
        {props.save}
      </button>
      {saved ? <p role="status">Saved.</p> : null}
    </form>
  );
}

function MfaDefaults() {
  const { can } = useSession();
  if (!can('mfa.defaults.write')) return null;
  return (
    <MfaForm path="/auth/mfa/client-defaults" title="Company MFA defaults" save="Save company defaults" />
  );
}

function MyMfa() {
  const { me, loadMe } = useSession();
  return (
    <>
      <TotpEnrollment enrolled={Boolean(me?.account?.totp_enrolled)} onEnrolled={() => loadMe()} />
      <MfaForm
        key={String(me?.account?.totp_enrolled)}
        path="/auth/mfa/me"
        title="My sign-in security"
        save="Save my sign-in security"
        withDefault
      />
    </>
  );
}

function TotpEnrollment({ enrolled, onEnrolled }: { enrolled: boolean; onEnrolled(): void }) {
  const { api } = useSession();
  const [start, setStart] = useState<{
    secret: string;
    otpauth_uri: string;
    enrollment_token: string;
  } | null>(null);
  const [qr, setQr] = useState('');
  const [code, setCode] = useState('');
  const [done, setDone] = useState(false);
  const act = useAction();
  useEffect(() => {
    if (start) QRCode.toDataURL(start.otpauth_uri, { margin: 1, width: 200 }).then(setQr, () => setQr(''));
  }, [start]);

  return (
    <section aria-labelledby="totp-title">
      <h2 id="totp-title">Authenticator app</h2>
      {done ? <p role="status">Authenticator app enrolled.</p> : null}
      {enrolled && !start && !done ? <p>An authenticator app is enrolled for your account.</p> : null}
      {!start ? (
        <button
          type="button"
          disabled={act.busy}
          onClick={() => act.run(async () => setStart(await api.post('/auth/mfa/totp/enroll/start')))}
        >
          {enrolled ? 'Enroll a new authenticator app' : 'Set up an authenticator app'}
        </button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            act.run(async () => {
              await api.post('/auth/mfa/totp/enroll/confirm', {
                enrollment_token: start.enrollment_token,
                otp_code: code.trim(),
              });
              setStart(null);
              setCode('');
              setDone(true);
              onEnrolled();
            });
          }}
        >
          <p>Scan the QR code with your authenticator app, or type the key, then enter the code it shows.</p>
          {qr ? <img src={qr} width={200} height={200} alt="QR code for your authenticator app" /> : null}
          <p>
            Key: <code data-testid="totp-secret">{start.secret}</code>
          </p>
          <Field
            label="Code from the app"
            name="otp_code"
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
    </section>
  );
}
