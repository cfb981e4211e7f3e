/** API credentials: create (secret shown once), reset the secret behind the security challenge, disable. */
import { useState } from 'react';
import { useSession } from '../session';
import { SecurityChallenge } from '../ui/dialogs';
import { Badge, ErrorBox, Field, Page, SecretOnce, Select, useAction, useLoad, when } from '../ui/kit';

interface Credential {
  credential_id: string;
  api_key: string;
  label: string;
  role: string;
  disabled?: boolean;
  created_at: string;
  last_used_at: string | null;
}

export function DevelopersPage() {
  const { api, can } = useSession();
  const list = useLoad(() => api.get<{ credentials: Credential[] }>('/auth/api-credentials'), [api]);
  const [label, setLabel] = useState('');
  const [role, setRole] = useState('developer');
  const [secret, setSecret] = useState<{ key: string; secret: string } | null>(null);
  const [resetting, setResetting] = useState<Credential | null>(null);
  const act = useAction();
  const write = can('credentials.write');

  return (
    <Page title="Developers">
      <h2>API credentials</h2>
      {write ? (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            act.run(async () => {
              const c = await api.post<{ api_key: string; api_secret: string }>('/auth/api-credentials', {
                label: label.trim(),
                role,
              });
              setSecret({ key: c.api_key, secret: c.api_secret });
              setLabel('');
              list.reload();
            });
          }}
        >
          <Field label="Label" name="label" value={label} onChange={setLabel} required />
          <Select
            label="Role"
            name="role"
            value={role}
            onChange={setRole}
            options={['owner', 'operations', 'developer']}
          />
          <button type="submit" disabled={act.busy}>
            Create credential
          </button>
        </form>
      ) : null}
      <ErrorBox error={act.error ?? list.error} />
      {secret ? (
        <>
          <p>
            API key: <code>{secret.key}</code>
          </p>
          <SecretOnce label="API secret" value={secret.secret} />
          <button type="button" className="secondary" onClick={() => setSecret(null)}>
            I have stored the secret
          </button>
        </>
      ) : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">API key</th>
              <th scope="col">Role</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.credentials.map((c) => (
              <tr key={c.credential_id}>
                <td>{c.label}</td>
                <td>
                  <code>{c.api_key}</code>
                </td>
                <td>{c.role}</td>
                <td>{when(c.last_used_at)}</td>
                <td>
                  {c.disabled ? (
                    <Badge value="disabled" />
                  ) : write ? (
                    <>
                      <button type="button" className="secondary" onClick={() => setResetting(c)}>
                        Reset secret
                      </button>
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Disable ${c.label}`}
                        onClick={() =>
                          act.run(async () => {
                            await api.post(`/auth/api-credentials/${c.credential_id}/disable`);
                            list.reload();
                          })
                        }
                      >
                        Disable
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {resetting ? (
        <SecurityChallenge
          action="REFRESH_API_KEY"
          title={`Reset the secret of ${resetting.label}`}
          onClose={() => setResetting(null)}
          onConfirm={async (headers) => {
            const r = await api.post<{ api_key: string; api_secret: string }>(
              `/auth/api-credentials/${resetting.credential_id}/reset-secret`,
              undefined,
              { headers },
            );
            setSecret({ key: r.api_key, secret: r.api_secret });
          }}
        />
      ) : null}
    </Page>
  );
}
