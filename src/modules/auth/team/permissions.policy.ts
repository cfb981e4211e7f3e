/**
 * The permission matrix: every client endpoint names one permission; roles map to sets of
 * permissions; custom API credentials carry an explicit list. This file is the single source
 * (the guides' permission table and the OpenAPI descriptions are generated from it).
 */
export const ROLES = ['owner', 'operations', 'developer'] as const;
export type Role = (typeof ROLES)[number];

const ALL: readonly Role[] = ROLES;
const OWNER_OPS: readonly Role[] = ['owner', 'operations'];
const OWNER_DEV: readonly Role[] = ['owner', 'developer'];
const OWNER: readonly Role[] = ['owner'];

/** permission -> [roles that have it, description] */
export const PERMISSION_MATRIX = {
  'account.read': [ALL, 'Read the caller, its client and role (GET /auth/me)'],
  'account.mfa': [ALL, 'Manage own MFA settings and TOTP enrollment'],
  'account.password': [ALL, 'Change own password'],
  'security.challenge': [ALL, 'Request security challenge codes'],
  'mfa.defaults.read': [OWNER_OPS, 'Read client MFA defaults'],
  'mfa.defaults.write': [OWNER_OPS, 'Change client MFA defaults'],
  'team.read': [OWNER, 'List team accounts'],
  'team.write': [OWNER, 'Create, update and delete team accounts'],
  'credentials.read': [OWNER, 'List API credentials'],
  'credentials.write': [OWNER, 'Create, rotate and disable API credentials'],
  'settings.read': [ALL, 'Read client settings (callback and webhook URLs)'],
  'settings.write': [OWNER_DEV, 'Change client settings'],
  'webhooks.read': [ALL, 'Read webhook subscription, destinations, deliveries and event types'],
  'webhooks.write': [
    OWNER_DEV,
    'Configure webhooks, destinations, secrets; send test events; retry deliveries',
  ],
  'payments.read': [ALL, 'Read transactions and their timelines'],
  'payments.write': [OWNER_OPS, 'Create payment links and cancel intents'],
  'payments.refresh': [ALL, 'Refresh a transaction status from the payment network'],
  'payments.refund': [OWNER_OPS, 'Refund successful payments and cancel pending refunds'],
  'sandbox.simulate': [ALL, 'Drive sandbox simulators (sandbox deployments only)'],
  'projects.read': [ALL, 'Read projects'],
  'projects.write': [OWNER_OPS, 'Create, update, archive projects'],
  'opcos.read': [ALL, 'Read opcos and the MCC catalogue'],
  'opcos.write': [OWNER_OPS, 'Create, edit, submit and delete opcos'],
  'kyc.users.read': [OWNER_OPS, 'Read users, KYC records, history and documents'],
  'kyc.users.write': [OWNER_OPS, 'Create users, generate KYC links, attest, resubmit'],
  'kyc.levels.read': [ALL, 'Read KYC and KYB verification levels'],
  'kyc.levels.write': [OWNER_OPS, 'Manage custom verification levels'],
  'kyb.businesses.read': [OWNER_OPS, 'Read business customers and KYB records'],
  'kyb.businesses.write': [OWNER_OPS, 'Create business customers, generate KYB links, resubmit'],
  'workflows.read': [ALL, 'Read workflows and runs'],
  'workflows.write': [OWNER_DEV, 'Create, edit, publish and run workflows'],
  // The named areas (docs/guides/index.md).
  'contracts.read': [ALL, 'Read contract templates, flows, requests and documents'],
  'contracts.templates.write': [
    ALL,
    'Create, edit, activate, archive and delete contract templates and flows',
  ],
  'contracts.send': [OWNER_OPS, 'Send contract requests; void, remind, correct participants'],
  'monitoring.read': [OWNER_OPS, 'Read monitored transactions and the monitoring policy; test a policy'],
  'monitoring.write': [OWNER_OPS, 'Submit transactions for monitoring'],
  'monitoring.review': [OWNER_OPS, 'Review monitoring decisions'],
  'monitoring.policy.write': [OWNER, 'Replace the monitoring policy'],
  'screening.read': [OWNER_OPS, 'Read wallets, screenings and wallet ownership requests'],
  'screening.write': [OWNER_OPS, 'Screen wallets, manage wallets and ownership requests'],
  'travel_rule.read': [OWNER_OPS, 'Read travel-rule transfers, settings and the VASP directory'],
  'travel_rule.write': [OWNER_OPS, 'Create and act on travel-rule transfers; change travel-rule settings'],
  'recurring.read': [ALL, 'Read recurring payments and their runs'],
  'recurring.write': [OWNER_OPS, 'Create, change, pause, cancel and retry recurring payments'],
  'schedules.read': [ALL, 'Read payment schedules'],
  'schedules.write': [OWNER_OPS, 'Create, change and cancel payment schedules and instalments'],
  'tickets.read': [ALL, "Read all of the client's support tickets"],
  'tickets.write': [ALL, 'Open, reply to, close and reopen support tickets'],
  'billing.read': [OWNER_OPS, 'Read invoices and usage'],
  'billing.write': [OWNER, 'Change billing details'],
  'notifications.read': [ALL, 'Read own notifications and preferences (dashboard token only)'],
  'notifications.write': [
    ALL,
    'Mark, archive own notifications; change own preferences (dashboard token only)',
  ],
  'activity.read': [OWNER, 'Read and export activity logs'],
} as const satisfies Record<string, readonly [readonly Role[], string]>;

export type Permission = keyof typeof PERMISSION_MATRIX;
export const PERMISSIONS = Object.keys(PERMISSION_MATRIX) as Permission[];

export function isPermission(p: string): p is Permission {
  return Object.hasOwn(PERMISSION_MATRIX, p);
}

export function permissionsForRole(role: Role): Permission[] {
  return PERMISSIONS.filter((p) => (PERMISSION_MATRIX[p][0] as readonly Role[]).includes(role));
}
