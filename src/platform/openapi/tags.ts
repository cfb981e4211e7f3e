/**
 * The tags of the API reference: a description for each, linking to its guide on the docs site
 * (`/docs/guides/<slug>`). A tag missing here still gets a link (to the quickstart), and
 * test/dx/openapi-names.unit.test.ts fails until it is added.
 */
export const GUIDE_BASE = '/docs/guides';

export const guideLink = (slug: string, text = 'guide') => `[${text}](${GUIDE_BASE}/${slug})`;

/** Tag -> [guide slug, one-sentence description]. */
export const TAG_GUIDES: Record<string, [slug: string, description: string]> = {
  'Activity logs': [
    'activity-logs',
    'Who did what and when in your account: an append-only, filterable, exportable log.',
  ],
  'Admin (staff)': [
    'operations',
    'Staff operations on clients, opcos, projects, invoices and platform settings.',
  ],
  Auth: [
    'authentication',
    'Sign in, MFA, API credentials and their exchange for access tokens, refresh and logout.',
  ],
  Billing: ['invoices', 'Your invoices, usage and billing details; staff issue and settle invoices.'],
  'Bulk payment links': [
    'bulk-links',
    'Create many payment links from one CSV or JSON upload, validated before they go out.',
  ],
  Contracts: [
    'contracts',
    'Templates, contract flows and e-signing requests, optionally backed by a payment.',
  ],
  Health: ['operations', 'Liveness and readiness probes for orchestrators and load balancers.'],
  KYB: ['verification', 'Business customers and their verification (know your business).'],
  KYC: ['verification', 'Individual users and their identity verification (know your customer).'],
  Notifications: [
    'notifications',
    'In-dashboard notifications for your team, with read state and preferences.',
  ],
  Opcos: [
    'opcos-projects',
    'Operating companies: the legal entities payments are collected for, reviewed before activation.',
  ],
  'Payment schedules': [
    'schedules',
    'Split an amount into dated instalments, each paid through its own payment link.',
  ],
  Payments: ['payments', 'Pay-by-bank payment links, the transactions they create and their status history.'],
  Projects: [
    'opcos-projects',
    'Projects group payments under an activated opco; a frozen project takes no new payments.',
  ],
  Providers: [
    'operations',
    'Signed notification routes the payment network and the verification providers call.',
  ],
  Refunds: [
    'refunds',
    'Send a paid payment back to the payer, in whole or in part, and follow each refund to its outcome.',
  ],
  'Recurring payments': [
    'recurring',
    'Variable recurring payments under a bank mandate, on a schedule or on demand.',
  ],
  Sandbox: [
    'sandbox',
    'Simulate payer, bank and provider behaviour in the sandbox environment (404 on production).',
  ],
  'Support tickets': ['tickets', 'Ask support for help and follow the conversation, with attachments.'],
  Team: ['roles-permissions', 'Team accounts, their roles and what each role may do.'],
  'Transaction monitoring': [
    'monitoring',
    'Submit transactions for rule-based monitoring, review cases and tune the policy.',
  ],
  'Travel rule': [
    'travel-rule',
    'Exchange originator and beneficiary information with other VASPs for crypto transfers.',
  ],
  'Wallet ownership': [
    'screening',
    'Have a customer prove control of a wallet (message signing, satoshi test, declaration).',
  ],
  'Wallet screening': [
    'screening',
    'Screen crypto wallet addresses for risk and keep monitored wallets re-screened.',
  ],
  Webhooks: [
    'webhooks',
    'Signed event deliveries to your endpoints: subscriptions, destinations, delivery log and retries.',
  ],
  Workflows: [
    'workflows',
    'Automate onboarding and payment steps as a graph, run on demand or by a signed trigger.',
  ],
};

/** The description of a tag, ending with the link to its guide. */
export function tagDescription(tag: string): string {
  const [slug, text] = TAG_GUIDES[tag] ?? ['quickstart', `Operations of the ${tag} area.`];
  return `${text} See the ${guideLink(slug, `${tag} guide`)}.`;
}
