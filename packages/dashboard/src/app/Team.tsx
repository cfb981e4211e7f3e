/** Team: add a member, change a role, deactivate; each behind its security challenge. */
import { useState } from 'react';
import { type ApiData, useApiCall, useApiQuery, useInvalidate } from '../query';
import { useSession } from '../session';
import { type SecurityAction, SecurityChallenge, type SecurityHeaders } from '../ui/dialogs';
import { Badge, Field, Page, Select, when } from '../ui/kit';
import { QueryTable } from '../ui/table';

type Account = ApiData<'get', '/auth/team/accounts'>['accounts'][number];

type Pending = { action: SecurityAction; title: string; run(h: SecurityHeaders): Promise<unknown> };
const ROLES = ['owner', 'operations', 'developer'] as const satisfies readonly Account['role'][];

export function TeamPage() {
  const { can, me } = useSession();
  const list = useApiQuery('/auth/team/accounts');
  const [f, setF] = useState<{ email: string; full_name: string; role: Account['role'] }>({
    email: '',
    full_name: '',
    role: 'developer',
  });
  const [pending, setPending] = useState<Pending | null>(null);
  const [done, setDone] = useState('');
  const call = useApiCall();
  const invalidate = useInvalidate();
  const write = can('team.write');

  // The dialog shows the call's error; once it succeeds the list refetches.
  const challenge = (p: Pending) => {
    setDone('');
    setPending({
      ...p,
      run: async (h) => {
        await p.run(h);
        await invalidate(['/auth/team/accounts']);
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
                await call('post', '/auth/team/accounts', { body, headers });
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
      <QueryTable
        q={list}
        what="your team"
        rows={(data) => data.accounts}
        rowKey={(a) => a.account_id}
        columns={[
          { header: 'Name', cell: (a) => a.full_name },
          { header: 'Email', cell: (a) => a.email },
          {
            header: 'Role',
            cell: (a) =>
              write && a.is_active && a.account_id !== me?.account?.account_id ? (
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
                        call('patch', '/auth/team/accounts/{account_id}', {
                          path: { account_id: a.account_id },
                          body: { role },
                          headers,
                        }),
                    })
                  }
                />
              ) : (
                a.role
              ),
          },
          { header: 'Last sign-in', cell: (a) => when(a.last_login_at) },
          {
            header: 'Status',
            cell: (a) => (
              <>
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
                          call('patch', '/auth/team/accounts/{account_id}', {
                            path: { account_id: a.account_id },
                            body: { is_active: false },
                            headers,
                          }),
                      })
                    }
                  >
                    Deactivate
                  </button>
                ) : null}
              </>
            ),
          },
        ]}
      />
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
