/**
 * Where a new account stands on its way to a first payment, read from the API: callback URL,
 * opco (drafted, submitted with the sandbox's countdown, activated), project, payer, webhook
 * endpoint, first payment link and first successful payment. Each open step links to its form.
 */
import { Link } from 'react-router';
import { useSession } from '../session';
import { ErrorBox, useLoad } from '../ui/kit';
import { Skeleton } from '../ui/states';
import { countdown, useNow } from './OpcoDetail';

interface Opco {
  opco_id: string;
  name: string;
  status: string;
  activation_due_at?: string | null;
}
type Page<K extends string, T = unknown> = Record<K, T[]> & { pagination: { total: number } };

export interface Step {
  id: string;
  title: string;
  done: boolean;
  /** What is happening or what to do, in a sentence. */
  detail: string;
  to: string;
  action: string;
}

interface Standing {
  callbackUrl: string | null;
  opcos: Opco[];
  projects: { project_id: string; opco_id: string | null }[];
  payers: number;
  webhook: boolean;
  payments: number;
  succeeded: number;
}

function steps(s: Standing, now: number): Step[] {
  const activated = s.opcos.find((o) => o.status === 'activated');
  const waiting = s.opcos.find(
    (o) => o.status === 'awaiting_approval' || o.status === 'pending_superadmin_review',
  );
  const draft = s.opcos.find((o) => o.status === 'draft');
  const opcoStep: Step = activated
    ? {
        id: 'opco',
        title: 'Opco activated',
        done: true,
        detail: `${activated.name} is activated.`,
        to: `/opcos/${activated.opco_id}`,
        action: 'View the opco',
      }
    : waiting
      ? {
          id: 'opco',
          title: 'Opco activated',
          done: false,
          detail: `${waiting.name} is submitted; ${waiting.activation_due_at ? `the sandbox activates it ${countdown(waiting.activation_due_at, now)}` : 'waiting for approval'}.`,
          to: `/opcos/${waiting.opco_id}`,
          action: 'View the opco',
        }
      : draft
        ? {
            id: 'opco',
            title: 'Opco activated',
            done: false,
            detail: `${draft.name} is a draft: check it and submit it.`,
            to: `/opcos/${draft.opco_id}`,
            action: 'Review and submit',
          }
        : {
            id: 'opco',
            title: 'Opco activated',
            done: false,
            detail: 'The company payments are taken for: create it, then submit it.',
            to: '/opcos/new',
            action: 'Create an opco',
          };
  const boundToActive = activated ? s.projects.find((p) => p.opco_id === activated.opco_id) : undefined;
  const anyOpco = activated ?? waiting ?? draft;
  return [
    {
      id: 'callback',
      title: 'Callback URL set',
      done: Boolean(s.callbackUrl),
      detail: s.callbackUrl ? `Payers return to ${s.callbackUrl}.` : 'Where payers return after paying.',
      to: '/settings',
      action: 'Set the callback URL',
    },
    opcoStep,
    {
      id: 'project',
      title: 'Project bound to an activated opco',
      done: Boolean(boundToActive),
      detail: boundToActive
        ? 'Payments can be taken in it.'
        : s.projects.length > 0
          ? 'A project exists; bind it to an activated opco to take payments.'
          : 'Payments are taken in a project bound to your opco.',
      to: `/projects/new${anyOpco ? `?opco_id=${anyOpco.opco_id}` : ''}`,
      action: 'Create a project',
    },
    {
      id: 'payer',
      title: 'A payer',
      done: s.payers > 0,
      detail:
        s.payers > 0
          ? `${s.payers} payer${s.payers === 1 ? '' : 's'}.`
          : 'The person a payment link is made out to.',
      to: '/payers/new',
      action: 'Add a payer',
    },
    {
      id: 'webhook',
      title: 'Webhook endpoint',
      done: s.webhook,
      detail: s.webhook ? 'Events are delivered to your endpoint.' : 'Where we send payment events.',
      to: '/webhooks',
      action: 'Add an endpoint',
    },
    {
      id: 'link',
      title: 'First payment link',
      done: s.payments > 0,
      detail: s.payments > 0 ? 'Created.' : 'Create a link and open its checkout.',
      to: '/payments/new',
      action: 'Create a payment link',
    },
    {
      id: 'paid',
      title: 'First successful payment',
      done: s.succeeded > 0,
      detail: s.succeeded > 0 ? 'Paid in the sandbox.' : 'Pay the link at the sandbox bank.',
      to: '/payments',
      action: 'Open payments',
    },
  ];
}

export function GetStarted() {
  const { api, can } = useSession();
  const total = (r: { pagination: { total: number } }) => r.pagination.total;
  const standing = useLoad(
    async (): Promise<Standing> => {
      const [settings, opcos, projects, payers, sub, dests, payments, succeeded] = await Promise.all([
        can('settings.read') ? api.get<{ callback_url: string | null }>('/auth/client/settings') : null,
        can('opcos.read') ? api.get<Page<'opcos', Opco>>('/opcos', { query: { page_size: 50 } }) : null,
        can('projects.read')
          ? api.get<Page<'projects', Standing['projects'][number]>>('/projects', {
              query: { page_size: 200 },
            })
          : null,
        can('kyc.users.read')
          ? api.get<Page<'users'>>('/kyc/lists', { query: { page_size: 1 } }).then(total)
          : 0,
        can('webhooks.read') ? api.get<{ webhook_url: string | null }>('/webhooks/subscription') : null,
        can('webhooks.read')
          ? api.get<{ total: number }>('/webhooks/destinations', { query: { limit: 1 } })
          : null,
        api.get<Page<'transactions'>>('/transactions', { query: { page_size: 1 } }).then(total),
        api
          .get<Page<'transactions'>>('/transactions', { query: { page_size: 1, status: 'success' } })
          .then(total),
      ]);
      return {
        callbackUrl: settings?.callback_url ?? null,
        opcos: opcos?.opcos ?? [],
        projects: projects?.projects ?? [],
        payers,
        webhook: Boolean(sub?.webhook_url) || (dests?.total ?? 0) > 0,
        payments,
        succeeded,
      };
    },
    [api],
    4000,
  );
  const waiting = standing.data?.opcos.some((o) => o.status === 'awaiting_approval' && o.activation_due_at);
  const now = useNow(Boolean(waiting));
  if (!standing.data)
    return (
      <section aria-labelledby="get-started" className="get-started">
        <h2 id="get-started">Get started</h2>
        <ErrorBox error={standing.error} />
        {standing.error ? null : <Skeleton what="your progress" lines={4} />}
      </section>
    );
  const list = steps(standing.data, now);
  const done = list.filter((s) => s.done).length;
  if (done === list.length) return null;
  const next = list.find((s) => !s.done);
  return (
    <section aria-labelledby="get-started" className="get-started">
      <h2 id="get-started">Get started</h2>
      <p>
        {done} of {list.length} steps to your first sandbox payment.
      </p>
      <ol className="checklist">
        {list.map((s) => (
          <li key={s.id} data-testid={`step-${s.id}`} data-done={s.done} className={s.done ? 'done' : ''}>
            <span className="check-mark" aria-hidden="true">
              {s.done ? '✓' : '○'}
            </span>
            <div>
              <strong>{s.title}</strong>
              <span className="visually-hidden">{s.done ? ' (done)' : ' (to do)'}</span>
              <p className="hint">{s.detail}</p>
            </div>
            {s.done ? null : (
              <Link to={s.to} className={s === next ? 'button' : 'button secondary'}>
                {s.action}
              </Link>
            )}
          </li>
        ))}
      </ol>
      <ErrorBox error={standing.error} />
    </section>
  );
}
