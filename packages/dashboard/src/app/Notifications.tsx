/** The notifications inbox (own notifications, dashboard token only) and the unread count for the navigation. */
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, Select, useAction, useLoad, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import type { Pagination } from './payments-shared';
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
] as const;

interface Notification {
  notification_id: string;
  category: string;
  severity: 'info' | 'warning' | 'critical';
  title: string;
  body: string;
  created_at: string;
  read_at: string | null;
  link: { resource_type: string; resource_id: string; path: string } | null;
}

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

/** Pages that change read state announce it, so the navigation's count follows without waiting for its poll. */
const CHANGED = 'svc:notifications-changed';
const announce = () => window.dispatchEvent(new Event(CHANGED));

export function useUnreadCount(enabled: boolean) {
  const { api } = useSession();
  const [count, setCount] = useState<number | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    const load = () =>
      api.get<{ unread_count: number }>('/notifications/counts').then(
        (c) => live && setCount(c.unread_count),
        () => undefined,
      );
    load();
    const timer = window.setInterval(load, 30_000);
    window.addEventListener(CHANGED, load);
    return () => {
      live = false;
      window.clearInterval(timer);
      window.removeEventListener(CHANGED, load);
    };
  }, [api, enabled]);
  return count;
}

const FILTERS = ['read', 'archived', 'category', 'severity', 'page', 'page_size'] as const;

export function NotificationsPage() {
  const { api, can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useLoad(
    () =>
      api.get<{ notifications: Notification[]; pagination: Pagination }>('/notifications', {
        query: f.query,
      }),
    [api, f.key],
  );
  const act = useAction();
  const write = can('notifications.write');
  const change = (fn: () => Promise<unknown>) =>
    act.run(async () => {
      await fn();
      list.reload();
      announce();
    });
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
                change(() =>
                  api.post('/notifications/mark-all-read', {
                    ...before,
                    ...(f.value('category') ? { category: f.value('category') } : {}),
                  }),
                )
              }
            >
              Mark all read
            </button>
            <button
              type="button"
              className="secondary"
              disabled={act.busy}
              onClick={() => change(() => api.post('/notifications/archive-read', before))}
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
      <ErrorBox error={list.error ?? act.error} />
      {list.data ? (
        list.data.notifications.length === 0 ? (
          <p className="empty">No notifications.</p>
        ) : (
          <>
            <ul className="plain inbox">
              {list.data.notifications.map((n) => (
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
                        api
                          .patch(`/notifications/${n.notification_id}`, { read: true })
                          .then(announce, () => undefined);
                    }}
                  />
                  {write ? (
                    <button
                      type="button"
                      className="secondary"
                      disabled={act.busy}
                      aria-label={`${n.read_at ? 'Mark unread' : 'Mark read'}: ${n.title}`}
                      onClick={() =>
                        change(() => api.patch(`/notifications/${n.notification_id}`, { read: !n.read_at }))
                      }
                    >
                      {n.read_at ? 'Mark unread' : 'Mark read'}
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
            <Pager p={list.data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )
      ) : list.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}
