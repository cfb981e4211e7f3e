/** Team: add a member, change a role, deactivate; each behind its security challenge. */
import { useState } from 'react';
import { useSession } from '../session';
import { type SecurityAction, SecurityChallenge, type SecurityHeaders } from '../ui/dialogs';
import { Badge, ErrorBox, Field, Page, Select, useAction, useLoad, when } from '../ui/kit';

interface Account {
  account_id: string;
  email: string;
  full_name: string;
  role: string;
  is_active: boolean;
  last_login_at: string | null;
}

type Pending = { action: SecurityAction; title: string; run(h: SecurityHeaders): Promise<unknown> };
const ROLES = ['owner', 'operations', 'developer'];

export function TeamPage() {
  const { api, can, me } = useSession();
  const list = useLoad(() => api.get<{ accounts: Account[] }>('/auth/team/accounts'), [api]);
  const [f, setF] = useState({ email: '', full_name: '', role: 'developer' });
  const [pending, setPending] = useState<Pending | null>(null);
  const [done, setDone] = useState('');
  const act = useAction();
  const write = can('team.write');

  const challenge = (p: Pending) => {
    setDone('');
    setPending({
      ...p,
      run: async (h) => {
        await p.run(h);
        list.reload();
      },
    });
  };

  return (
    <Page title="Team">
      {write ? (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            const body = { ...f, email: f.email.trim() };
            challenge({
              action: 'ADD_MEMBER',
              title: `Add ${body.email}`,
              run: async (headers) => {
                await api.post('/auth/team/accounts', body, { headers });
                setDone(`${body.email} was added and has been emailed a temporary password.`);
                setF({ email: '', full_name: '', role: 'developer' });
              },
            });
          }}
        >
          <Field
            label="Email"
            name="email"
            type="email"
            value={f.email}
            onChange={(v) => setF({ ...f, email: v })}
            required
          />
          <Field
            label="Full name"
            name="full_name"
            value={f.full_name}
            onChange={(v) => setF({ ...f, full_name: v })}
            required
          />
          <Select
            label="Role"
            name="role"
            value={f.role}
            onChange={(v) => setF({ ...f, role: v })}
            options={ROLES}
          />
          <button type="submit">Add member</button>
        </form>
      ) : null}
      {done ? <p role="status">{done}</p> : null}
      <ErrorBox error={act.error ?? list.error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.accounts.map((a) => (
              <tr key={a.account_id}>
                <td>{a.full_name}</td>
                <td>{a.email}</td>
                <td>
                  {write && a.is_active && a.account_id !== me?.account?.account_id ? (
                    <Select
                      label={`Role of ${a.email}`}
                      name="role"
                      value={a.role}
                      options={ROLES}
                      onChange={(role) =>
                        challenge({
                          action: 'UPDATE_MEMBER',
                          title: `Make ${a.email} ${role}`,
                          run: (headers) =>
                            api.patch(`/auth/team/accounts/${a.account_id}`, { role }, { headers }),
                        })
                      }
                    />
                  ) : (
                    a.role
                  )}
                </td>
                <td>{when(a.last_login_at)}</td>
                <td>
                  <Badge value={a.is_active ? 'active' : 'inactive'} />
                  {write && a.is_active && a.account_id !== me?.account?.account_id ? (
                    <button
                      type="button"
                      className="danger"
                      onClick={() =>
                        challenge({
                          action: 'UPDATE_MEMBER',
                          title: `Deactivate ${a.email}`,
                          run: (headers) =>
                            api.patch(
                              `/auth/team/accounts/${a.account_id}`,
                              { is_active: false },
                              { headers },
                            ),
                        })
                      }
                    >
                      Deactivate
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pending ? (
        <SecurityChallenge
          action={pending.action}
          title={pending.title}
          onClose={() => setPending(null)}
          onConfirm={pending.run}
        />
      ) : null}
    </Page>
  );
}
