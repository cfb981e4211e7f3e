/** The notifications inbox (own notifications, dashboard token only) and the unread count for the navigation. */
import { Link } from 'react-router';
import { type ApiData, useApiActions, useApiQuery, useInvalidate } from '../query';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, Select, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { QueryView } from '../ui/states';
import { Pager } from './payments-shared';

export const NOTIFICATION_CATEGORIES = [
  'payments',
  'verification',
  'opcos',
  'contracts',
  'monitoring',
  'screening',
  'travel_rule',
  'recurring_payments',
  'payment_schedules',
  'bulk_links',
  'tickets',
  'billing',
  'webhooks',
  'security',
  'system',
] as const satisfies readonly Notification['category'][];

type Notification = ApiData<'get', '/notifications'>['notifications'][number];

/** The link text per kind of item (the API's resource_type). */
const ITEM_WORDS: Record<string, string> = {
  api_credential: 'API credentials',
  team_member: 'team',
  client: 'security settings',
  opco: 'opco',
  travel_rule_transfer: 'transfer',
  wallet: 'wallet',
  bulk_job: 'bulk job',
  invoice: 'invoice',
  recurring_payment: 'recurring payment',
  payment_schedule: 'payment schedule',
  ticket: 'ticket',
  contract_request: 'contract',
  monitored_transaction: 'monitored transaction',
  webhook_delivery: 'webhook delivery',
};

/** "Open <item>": inside the dashboard a client-side link (opening it marks the notification read). */
function ItemLink({ n, onOpen }: { n: Notification; onOpen(): void }) {
  if (!n.link) return null;
  const text = `Open ${ITEM_WORDS[n.link.resource_type] ?? 'item'}`;
  const label = `${text}: ${n.title}`;
  const inApp = n.link.path.startsWith('/dashboard/');
  return inApp ? (
    <Link
      className="item-link"
      to={n.link.path.slice('/dashboard'.length)}
      aria-label={label}
      onClick={onOpen}
    >
      {text}
    </Link>
  ) : (
    <a className="item-link" href={n.link.path} aria-label={label}>
      {text}
    </a>
  );
}

/**
 * The navigation's unread count: polled, and refetched as soon as a page changes read state (every
 * change invalidates `/notifications`, this query included).
 */
export function useUnreadCount(enabled: boolean) {
  const counts = useApiQuery('/notifications/counts', { poll: 30_000, enabled });
  return counts.data?.unread_count ?? null;
}

const FILTERS = ['read', 'archived', 'category', 'severity', 'page', 'page_size'] as const;

export function NotificationsPage() {
  const { can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/notifications', { query: f.query, keep: true });
  const act = useApiActions({ invalidate: ['/notifications'] });
  const invalidate = useInvalidate();
  const write = can('notifications.write');
  const category = f.value('category') as Notification['category'] | '';
  // Bulk changes leave alone anything newer than what is on screen (an item arriving mid-click stays
  // unread). Taken from the API's own timestamps, not the browser's clock; `before` is exclusive.
  const newest = list.data?.notifications.reduce((m, n) => (n.created_at > m ? n.created_at : m), '');
  const before = newest ? { before: new Date(Date.parse(newest) + 1).toISOString() } : {};
  return (
    <Page
      title="Notifications"
      actions={
        write ? (
          <>
            <button
              type="button"
              disabled={act.busy}
              onClick={() =>
                act.send('post', '/notifications/mark-all-read', {
                  body: { ...before, ...(category ? { category } : {}) },
                })
              }
            >
              Mark all read
            </button>
            <button
              type="button"
              className="secondary"
              disabled={act.busy}
              onClick={() => act.send('post', '/notifications/archive-read', { body: before })}
            >
              Archive read
            </button>
          </>
        ) : null
      }
    >
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Read"
          name="read"
          value={f.value('read')}
          onChange={(v) => f.setFilter('read', v)}
          options={[
            ['', 'Any'],
            ['false', 'Unread'],
            ['true', 'Read'],
          ]}
        />
        <Select
          label="Archived"
          name="archived"
          value={f.value('archived')}
          onChange={(v) => f.setFilter('archived', v)}
          options={[
            ['', 'Inbox'],
            ['true', 'Archived'],
          ]}
        />
        <Select
          label="Category"
          name="category"
          value={f.value('category')}
          onChange={(v) => f.setFilter('category', v)}
          options={['', ...NOTIFICATION_CATEGORIES]}
        />
        <Select
          label="Severity"
          name="severity"
          value={f.value('severity')}
          onChange={(v) => f.setFilter('severity', v)}
          options={['', 'info', 'warning', 'critical']}
        />
      </form>
      <ErrorBox error={act.error} />
      <QueryView q={list} what="your notifications">
        {(data) =>
          data.notifications.length === 0 ? (
            <p className="empty">No notifications.</p>
          ) : (
            <>
              <ul className="plain inbox">
                {data.notifications.map((n) => (
                  <li key={n.notification_id} className={n.read_at ? 'read' : 'unread'}>
                    <h2 className="item-title">
                      {n.read_at ? null : <span className="visually-hidden">Unread: </span>}
                      {n.title}
                    </h2>
                    <p>{n.body}</p>
                    <p className="meta">
                      <Badge value={n.severity} /> {n.category} · {when(n.created_at)}
                    </p>
                    <ItemLink
                      n={n}
                      onOpen={() => {
                        if (write && !n.read_at)
                          act
                            .call('patch', '/notifications/{notification_id}', {
                              path: { notification_id: n.notification_id },
                              body: { read: true },
                            })
                            .then(
                              () => invalidate(['/notifications']),
                              () => undefined,
                            );
                      }}
                    />
                    {write ? (
                      <button
                        type="button"
                        className="secondary"
                        disabled={act.busy}
                        aria-label={`${n.read_at ? 'Mark unread' : 'Mark read'}: ${n.title}`}
                        onClick={() =>
                          act.send('patch', '/notifications/{notification_id}', {
                            path: { notification_id: n.notification_id },
                            body: { read: !n.read_at },
                          })
                        }
                      >
                        {n.read_at ? 'Mark unread' : 'Mark read'}
                      </button>
                    ) : null}
                  </li>
                ))}
              </ul>
              <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
            </>
          )
        }
      </QueryView>
    </Page>
  );
}
