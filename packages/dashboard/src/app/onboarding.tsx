/**
 * Where a new account stands on its way to a first payment, read from the API: callback URL,
 * opco (drafted, submitted with the sandbox's countdown, activated), project, payer, webhook
 * endpoint, first payment link and first successful payment. Each open step links to its form.
 */
import { Link } from 'react-router';
import { type ApiData, useApiQuery } from '../query';
import { useSession } from '../session';
import { QueryError, Skeleton } from '../ui/states';
import { activationDue, countdown, useNow } from './OpcoDetail';

type Opco = ApiData<'get', '/opcos'>['opcos'][number];

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
  projects: ApiData<'get', '/projects'>['projects'];
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
          detail: `${waiting.name} is submitted; ${activationDue(waiting) ? `the sandbox activates it ${countdown(activationDue(waiting)!, now)}` : 'waiting for approval'}.`,
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

/** What the checklist reads: one query per resource, shared with the pages that show them. */
function useStanding(): { data: Standing | null; error: unknown; retry(): void } {
  const { can } = useSession();
  const poll = 4000;
  const one = { page_size: 1 };
  const settings = useApiQuery('/auth/client/settings', { enabled: can('settings.read'), poll });
  const opcos = useApiQuery('/opcos', { query: { page_size: 50 }, enabled: can('opcos.read'), poll });
  const projects = useApiQuery('/projects', {
    query: { page_size: 200 },
    enabled: can('projects.read'),
    poll,
  });
  const payers = useApiQuery('/kyc/lists', { query: one, enabled: can('kyc.users.read'), poll });
  const sub = useApiQuery('/webhooks/subscription', { enabled: can('webhooks.read'), poll });
  const dests = useApiQuery('/webhooks/destinations', {
    query: { limit: 1 },
    enabled: can('webhooks.read'),
    poll,
  });
  const payments = useApiQuery('/transactions', { query: one, poll });
  const paid = useApiQuery('/transactions', { query: { ...one, status: 'success' }, poll });
  const all = [settings, opcos, projects, payers, sub, dests, payments, paid];
  const error = all.find((q) => q.error)?.error ?? null;
  const retry = () => {
    for (const q of all) if (q.error) q.refetch();
  };
  // A query that is not allowed for this role stays pending forever: it counts as loaded.
  if (all.some((q) => q.isPending && q.fetchStatus !== 'idle')) return { data: null, error, retry };
  if (!payments.data || !paid.data) return { data: null, error, retry };
  return {
    error,
    retry,
    data: {
      callbackUrl: settings.data?.callback_url ?? null,
      opcos: opcos.data?.opcos ?? [],
      projects: projects.data?.projects ?? [],
      payers: payers.data?.pagination.total ?? 0,
      webhook: Boolean(sub.data?.webhook_url) || (dests.data?.total ?? 0) > 0,
      payments: payments.data.pagination.total,
      succeeded: paid.data.pagination.total,
    },
  };
}

export function GetStarted() {
  const standing = useStanding();
  const waiting = standing.data?.opcos.some((o) => o.status === 'awaiting_approval' && activationDue(o));
  const now = useNow(Boolean(waiting));
  if (!standing.data)
    return (
      <section aria-labelledby="get-started" className="get-started">
        <h2 id="get-started">Get started</h2>
        {standing.error ? (
          <QueryError error={standing.error} what="your progress" retry={standing.retry} />
        ) : (
          <Skeleton what="your progress" lines={4} />
        )}
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
      <QueryError error={standing.error} what="the latest progress" />
    </section>
  );
}
