/** Settings: callback URL, MFA client defaults, and my own MFA (authenticator enrollment with a QR code). */
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { type ApiData, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { ErrorBox, Field, Page, Select } from '../ui/kit';
import { QueryError, Skeleton } from '../ui/states';

type MfaPath = '/auth/mfa/client-defaults' | '/auth/mfa/me';
type Mfa = ApiData<'get', '/auth/mfa/me'>;

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
  const { can } = useSession();
  const s = useApiQuery('/auth/client/settings');
  const [url, setUrl] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const act = useApiActions({ invalidate: ['/auth/client/settings'] });
  const shown = url ?? s.data?.callback_url ?? '';
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        act.run(async () => {
          await act.call('put', '/auth/client/settings', { body: { callback_url: shown.trim() || null } });
          setUrl(null);
          setSaved(true);
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
      <QueryError error={s.error} what="the callback URL" />
      <ErrorBox error={act.error} />
      {can('settings.write') ? (
        <button type="submit" disabled={act.busy}>
          Save callback URL
        </button>
      ) : null}
      {saved ? <p role="status">Saved.</p> : null}
    </form>
  );
}

function MfaForm(props: { path: MfaPath; title: string; save: string; withDefault?: boolean }) {
  const { path, title, withDefault } = props;
  const cur = useApiQuery(path);
  const [draft, setDraft] = useState<Mfa | null>(null);
  const [saved, setSaved] = useState(false);
  const act = useApiActions({ invalidate: [path] });
  const m = draft ?? (cur.data as Mfa | undefined);
  if (!m)
    return cur.error ? (
      <QueryError error={cur.error} what={title.toLowerCase()} />
    ) : (
      <Skeleton what={title} />
    );
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
          await act.call('put', path, {
            body: {
              mfa_enabled,
              email_enabled,
              totp_enabled,
              preferred_method,
              ...(withDefault ? { mfa_use_client_default } : {}),
            },
          });
          setDraft(null);
          setSaved(true);
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
        onChange={(v) => set({ preferred_method: v })}
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
  const [start, setStart] = useState<ApiData<'post', '/auth/mfa/totp/enroll/start'> | null>(null);
  const [qr, setQr] = useState('');
  const [code, setCode] = useState('');
  const [done, setDone] = useState(false);
  const act = useApiActions({ invalidate: ['/auth/mfa/me'] });
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
          onClick={() => act.send('post', '/auth/mfa/totp/enroll/start').then((r) => r && setStart(r))}
        >
          {enrolled ? 'Enroll a new authenticator app' : 'Set up an authenticator app'}
        </button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            act.run(async () => {
              await act.call('post', '/auth/mfa/totp/enroll/confirm', {
                body: { enrollment_token: start.enrollment_token, otp_code: code.trim() },
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
