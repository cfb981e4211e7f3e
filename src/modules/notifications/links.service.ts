/**
 * Where a notification's item lives: its page in the merchant dashboard (served at /dashboard by
 * src/modules/dashboard). The notification's `link.path` and the email's "Open:" line both come
 * from here, and the list view recomputes the path of rows written before a route moved, so a link
 * never points at a page that does not exist. Every kind has a page that renders its item
 * (test/browser/notification-links.test.ts follows each one).
 */
export const DASHBOARD_PATHS = {
  api_credential: () => '/dashboard/developers',
  team_member: () => '/dashboard/team',
  /** Company security settings (MFA). */
  client: () => '/dashboard/settings',
  opco: (id: string) => `/dashboard/opcos/${id}`,
  travel_rule_transfer: (id: string) => `/dashboard/travel-rule/${id}`,
  wallet: (id: string) => `/dashboard/wallets/${id}`,
  bulk_job: (id: string) => `/dashboard/bulk-links/${id}`,
  invoice: (id: string) => `/dashboard/invoices/${id}`,
  recurring_payment: (id: string) => `/dashboard/recurring/${id}`,
  payment_schedule: (id: string) => `/dashboard/schedules/${id}`,
  ticket: (id: string) => `/dashboard/tickets/${id}`,
  contract_request: (id: string) => `/dashboard/contracts/${id}`,
  monitored_transaction: (id: string) => `/dashboard/monitoring/${id}`,
  webhook_delivery: (id: string) => `/dashboard/webhooks/deliveries/${id}`,
} satisfies Record<string, (id: string) => string>;

export type NotificationItemType = keyof typeof DASHBOARD_PATHS;

/** The item a notification is about. */
export interface NotificationItem {
  type: NotificationItemType;
  id: string;
}

export interface NotificationLink {
  resource_type: string;
  resource_id: string;
  path: string;
}

export function linkOf(item: NotificationItem): NotificationLink {
  return { resource_type: item.type, resource_id: item.id, path: DASHBOARD_PATHS[item.type](item.id) };
}

/** A stored link with its dashboard path as of now (rows written before a page moved included). */
export function currentLink(link: NotificationLink | null): NotificationLink | null {
  if (!link) return null;
  const path = Object.hasOwn(DASHBOARD_PATHS, link.resource_type)
    ? DASHBOARD_PATHS[link.resource_type as NotificationItemType](link.resource_id)
    : link.path;
  return { ...link, path };
}
