/** API credentials: create (secret shown once), reset the secret behind the security challenge, disable. */
import { useState } from 'react';
import { type ApiData, useApiActions, useApiQuery, useInvalidate } from '../query';
import { useSession } from '../session';
import { SecurityChallenge } from '../ui/dialogs';
import { Badge, ErrorBox, Field, Page, SecretOnce, Select, when } from '../ui/kit';
import { QueryTable } from '../ui/table';

type Credential = ApiData<'get', '/auth/api-credentials'>['credentials'][number];

export function DevelopersPage() {
  const { can } = useSession();
  const list = useApiQuery('/auth/api-credentials');
  const [label, setLabel] = useState('');
  // A server that takes payments needs payments.write: operations has it, developer does not.
  const [role, setRole] = useState<Credential['role']>('operations');
  const [secret, setSecret] = useState<{ key: string; secret: string } | null>(null);
  const [resetting, setResetting] = useState<Credential | null>(null);
  const act = useApiActions({ invalidate: ['/auth/api-credentials'] });
  const write = can('credentials.write');
  const invalidate = useInvalidate();

  return (
    <Page title="Developers">
      <h2>API credentials</h2>
      {write ? (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            act.run(async () => {
              const c = await act.call('post', '/auth/api-credentials', {
                body: { label: label.trim(), role },
              });
              setSecret({ key: c.api_key, secret: c.api_secret });
              setLabel('');
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
      {write ? (
        <p className="hint" data-testid="credential-roles">
          The role decides what the credential may do. <strong>operations</strong>: create payment links,
          projects, opcos and verifications (what a shop's server needs). <strong>developer</strong>: read
          payments, projects and opcos, configure webhooks and settings, but not create payments.{' '}
          <strong>owner</strong>: everything, including team and credentials. A refused call answers 403
          naming the permission it needs and the roles that have it.{' '}
          <a href="/docs/guides/roles-permissions">The role table</a>
        </p>
      ) : null}
      <ErrorBox error={act.error} />
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
      <QueryTable
        q={list}
        what="the API credentials"
        rows={(data) => data.credentials}
        rowKey={(c) => c.credential_id}
        columns={[
          { header: 'Label', cell: (c) => c.label },
          { header: 'API key', cell: (c) => <code>{c.api_key}</code> },
          { header: 'Role', cell: (c) => c.role },
          { header: 'Last used', cell: (c) => when(c.last_used_at) },
          {
            header: 'Actions',
            cell: (c) =>
              c.disabled ? (
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
                      act.send('post', '/auth/api-credentials/{credential_id}/disable', {
                        path: { credential_id: c.credential_id },
                      })
                    }
                  >
                    Disable
                  </button>
                </>
              ) : null,
          },
        ]}
      />
      {resetting ? (
        <SecurityChallenge
          action="REFRESH_API_KEY"
          title={`Reset the secret of ${resetting.label}`}
          onClose={() => setResetting(null)}
          onConfirm={async (headers) => {
            const r = await act.call('post', '/auth/api-credentials/{credential_id}/reset-secret', {
              path: { credential_id: resetting.credential_id },
              headers,
            });
            setSecret({ key: r.api_key, secret: r.api_secret });
            await invalidate(['/auth/api-credentials']);
          }}
        />
      ) : null}
    </Page>
  );
}
