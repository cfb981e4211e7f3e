/**
 * The generated parts of the guides in docs/guides: each status machine drawn as a Mermaid
 * `stateDiagram-v2` and the error message catalogues (from the definitions themselves, so the guides
 * cannot drift from the code). A generated block sits between `<!-- generated:NAME -->` and
 * `<!-- /generated:NAME -->`; `npm run docs:generate` rewrites these, `npm run docs:permissions` the
 * permission table and endpoint lists, and tests fail while a block is stale.
 */

import { ActivityMessages } from '../modules/activity/activity.messages';
import { clientMachine } from '../modules/auth/registration/registration.machine';
import { type RouteAccess, specPath } from '../modules/auth/team/permissions-doc.service';
import { invoiceMachine } from '../modules/billing/billing.machine';
import { BillingMessages } from '../modules/billing/billing.messages';
import { jobMachine, rowMachine } from '../modules/bulk-links/bulk.machine';
import { BulkLinkMessages } from '../modules/bulk-links/bulk.messages';
import { ContractMessages } from '../modules/contracts/contracts.messages';
import { flowMachine } from '../modules/contracts/flows/flows.machine';
import { participantMachine } from '../modules/contracts/participants/participants.machine';
import { requestMachine } from '../modules/contracts/requests/requests.machine';
import { KycMessages } from '../modules/kyc/kyc.messages';
import { decisionMachine } from '../modules/monitoring/monitoring.machine';
import { MonitoringMessages } from '../modules/monitoring/monitoring.messages';
import { NotificationMessages } from '../modules/notifications/notifications.messages';
import { opcoMachine } from '../modules/opcos/opcos.machine';
import { transactionMachine } from '../modules/payments/payments.machine';
import { PaymentMessages } from '../modules/payments/payments.messages';
import { projectMachine } from '../modules/projects/projects.machine';
import { recurringMachine } from '../modules/recurring/recurring.machine';
import { RecurringMessages } from '../modules/recurring/recurring.messages';
import { runMachine as recurringRunMachine } from '../modules/recurring/runs.machine';
import { refundMachine } from '../modules/refunds/refunds.machine';
import { RefundMessages } from '../modules/refunds/refunds.messages';
import { instalmentMachine, scheduleMachine } from '../modules/schedules/schedules.machine';
import { ScheduleMessages } from '../modules/schedules/schedules.messages';
import { ownershipMachine } from '../modules/screening/ownership.machine';
import { ScreeningMessages } from '../modules/screening/screening.messages';
import { ticketMachine } from '../modules/tickets/tickets.machine';
import { TicketMessages } from '../modules/tickets/tickets.messages';
import { transferMachine } from '../modules/travel-rule/travel-rule.machine';
import { TravelRuleMessages } from '../modules/travel-rule/travel-rule.messages';
import { deliveryMachine } from '../modules/webhooks/webhooks.machine';
import { definitionMachine, runMachine as workflowRunMachine } from '../modules/workflows/workflows.machine';
import { WorkflowMessages } from '../modules/workflows/workflows.messages';
import type { Move } from '../platform/machine';
import { HttpMessages } from '../shared/http.messages';
import { M } from '../shared/messages';

interface DrawableMachine {
  readonly statuses: readonly string[];
  readonly terminal: readonly string[];
  readonly moves: readonly Move<string, string>[];
}

/** Each diagram: the guide it is drawn in and the machine it draws. */
export const MACHINE_DIAGRAMS: Record<string, { guide: string; machine: DrawableMachine }> = {
  'machine:client': { guide: 'environments', machine: clientMachine },
  'machine:transaction': { guide: 'payments', machine: transactionMachine },
  'machine:refund': { guide: 'refunds', machine: refundMachine },
  'machine:opco': { guide: 'opcos-projects', machine: opcoMachine },
  'machine:project': { guide: 'opcos-projects', machine: projectMachine },
  'machine:invoice': { guide: 'invoices', machine: invoiceMachine },
  'machine:bulk-job': { guide: 'bulk-links', machine: jobMachine },
  'machine:bulk-row': { guide: 'bulk-links', machine: rowMachine },
  'machine:contract-request': { guide: 'contracts', machine: requestMachine },
  'machine:contract-flow': { guide: 'contracts', machine: flowMachine },
  'machine:contract-participant': { guide: 'contracts', machine: participantMachine },
  'machine:monitoring-decision': { guide: 'monitoring', machine: decisionMachine },
  'machine:recurring': { guide: 'recurring', machine: recurringMachine },
  'machine:recurring-run': { guide: 'recurring', machine: recurringRunMachine },
  'machine:schedule': { guide: 'schedules', machine: scheduleMachine },
  'machine:instalment': { guide: 'schedules', machine: instalmentMachine },
  'machine:wallet-ownership': { guide: 'screening', machine: ownershipMachine },
  'machine:ticket': { guide: 'tickets', machine: ticketMachine },
  'machine:travel-rule-transfer': { guide: 'travel-rule', machine: transferMachine },
  'machine:webhook-delivery': { guide: 'operations', machine: deliveryMachine },
  'machine:workflow-definition': { guide: 'workflows', machine: definitionMachine },
  'machine:workflow-run': { guide: 'workflows', machine: workflowRunMachine },
};

/** The machine as a Mermaid state diagram: one arrow per (from, to), labelled with its triggers. */
export function mermaidOf(m: DrawableMachine): string {
  const edges = new Map<string, string[]>();
  for (const move of m.moves) {
    const key = `${move.from} --> ${move.to}`;
    const triggers = edges.get(key) ?? [];
    if (!triggers.includes(move.trigger)) triggers.push(move.trigger);
    edges.set(key, triggers);
  }
  const lines = ['```mermaid', 'stateDiagram-v2'];
  for (const [edge, triggers] of edges) lines.push(`    ${edge}: ${triggers.join(', ')}`);
  for (const s of m.terminal) lines.push(`    ${s} --> [*]`);
  const drawn = new Set(m.moves.flatMap((mv) => [mv.from, mv.to]));
  for (const s of m.statuses) if (!drawn.has(s)) lines.push(`    ${s}`);
  lines.push('```');
  return lines.join('\n');
}

type Catalogue = Record<string, string | ((...args: never[]) => string)>;

/** Every message catalogue, by the guide heading it is listed under. */
export const MESSAGE_CATALOGUES: [string, Catalogue, string][] = [
  [
    'Shared (authentication, payments, KYC/KYB, opcos, projects, workflows, webhooks, …)',
    M,
    'src/shared/messages.ts',
  ],
  ['HTTP (request format, authentication headers)', HttpMessages, 'src/shared/http.messages.ts'],
  ['Payments and checkout', PaymentMessages, 'src/modules/payments/payments.messages.ts'],
  ['Refunds', RefundMessages, 'src/modules/refunds/refunds.messages.ts'],
  ['KYC/KYB verification', KycMessages, 'src/modules/kyc/kyc.messages.ts'],
  ['Workflows', WorkflowMessages, 'src/modules/workflows/workflows.messages.ts'],
  ['Billing invoices', BillingMessages, 'src/modules/billing/billing.messages.ts'],
  ['Bulk payment links', BulkLinkMessages, 'src/modules/bulk-links/bulk.messages.ts'],
  ['Contracts', ContractMessages, 'src/modules/contracts/contracts.messages.ts'],
  ['Transaction monitoring', MonitoringMessages, 'src/modules/monitoring/monitoring.messages.ts'],
  ['Recurring payments', RecurringMessages, 'src/modules/recurring/recurring.messages.ts'],
  ['Payment schedules', ScheduleMessages, 'src/modules/schedules/schedules.messages.ts'],
  ['Wallet screening and ownership', ScreeningMessages, 'src/modules/screening/screening.messages.ts'],
  ['Support tickets', TicketMessages, 'src/modules/tickets/tickets.messages.ts'],
  ['Travel rule', TravelRuleMessages, 'src/modules/travel-rule/travel-rule.messages.ts'],
  ['Activity logs', ActivityMessages, 'src/modules/activity/activity.messages.ts'],
  ['Notifications', NotificationMessages, 'src/modules/notifications/notifications.messages.ts'],
];

/** A message with its parameters shown as `{name}` (read from the function's own parameter list). */
function messageText(v: string | ((...args: never[]) => string)): string {
  if (typeof v === 'string') return v;
  const m = /^(?:function\s*\w*)?\(?([^)=]*)\)?\s*=>/.exec(v.toString());
  const names = (m?.[1] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  try {
    return (v as (...a: string[]) => string)(...names.map((n) => `{${n}}`));
  } catch {
    // A message that computes with a parameter (joins a list): show its template instead.
    const template = /`([^`]*)`/.exec(v.toString())?.[1] ?? v.toString();
    return template.replace(/\$\{([^}]*)\}/g, (_, expr: string) => `{${expr.split(/[.(]/)[0]}}`);
  }
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** Every catalogue as Markdown: a heading and a table of the messages, verbatim. */
export function messagesMarkdown(): string {
  // The guide is for merchants: the catalogue's source file (third entry) is for maintainers only.
  return MESSAGE_CATALOGUES.map(([title, cat]) => {
    const rows = Object.values(cat).map((v) => `| ${cell(messageText(v))} |`);
    return [`### ${title}`, '', '| Message |', '|---|', ...rows].join('\n');
  }).join('\n\n');
}

/** Every generated block of the guides (not the permission blocks): file name -> block name -> content. */
export function generatedBlocks(): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const put = (guide: string, name: string, content: string) => {
    const file = `${guide}.md`;
    if (!out.has(file)) out.set(file, new Map());
    out.get(file)!.set(name, content);
  };
  for (const [name, { guide, machine }] of Object.entries(MACHINE_DIAGRAMS))
    put(guide, name, mermaidOf(machine));
  put('errors', 'messages', messagesMarkdown());
  return out;
}

const open = (name: string) => `<!-- generated:${name} -->`;
const close = (name: string) => `<!-- /generated:${name} -->`;

/** The text between a block's markers; null when the document has no such block. */
export function readBlock(doc: string, name: string): string | null {
  const start = doc.indexOf(open(name));
  const end = doc.indexOf(close(name));
  if (start < 0 || end < start) return null;
  return doc.slice(start + open(name).length, end).trim();
}

/** The document with the block's content replaced (the markers must already be there). */
export function writeBlock(doc: string, name: string, content: string): string {
  const start = doc.indexOf(open(name));
  const end = doc.indexOf(close(name));
  if (start < 0 || end < start) throw new Error(`no ${open(name)} … ${close(name)} block`);
  return `${doc.slice(0, start)}${open(name)}\n${content}\n${doc.slice(end)}`;
}

/** The guides that list endpoints, by path prefix (under /api/v1); a route goes to its longest prefix. */
export const ENDPOINT_GUIDES: Record<string, readonly string[]> = {
  payments: ['/checkout/paylink', '/checkout/intent', '/transactions'],
  refunds: ['/refunds', '/transactions/{transaction_id}/refunds'],
  'bulk-links': ['/checkout/paylink/bulk'],
  verification: ['/kyc', '/kyb'],
  'opcos-projects': ['/opcos', '/projects'],
  workflows: ['/workflows', '/workflow-runs'],
  contracts: ['/contracts'],
  monitoring: ['/monitoring'],
  screening: ['/screening'],
  'travel-rule': ['/travel-rule'],
  recurring: ['/recurring-payments'],
  schedules: ['/payment-schedules'],
  tickets: ['/tickets'],
  invoices: ['/billing'],
  notifications: ['/notifications'],
  'activity-logs': ['/activity-logs'],
  sandbox: ['/sandbox'],
};

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** Each guide's endpoint table (block `endpoints:<guide>`), from the routes the app registers. */
export function endpointBlocks(routes: readonly RouteAccess[]): Map<string, string> {
  const rows = new Map<string, RouteAccess[]>();
  for (const r of routes) {
    const path = specPath(r.url);
    let best: [string, number] | null = null;
    for (const [guide, prefixes] of Object.entries(ENDPOINT_GUIDES))
      for (const p of prefixes) if (under(path, p) && (!best || p.length > best[1])) best = [guide, p.length];
    if (best) rows.set(best[0], [...(rows.get(best[0]) ?? []), r]);
  }
  const out = new Map<string, string>();
  for (const guide of Object.keys(ENDPOINT_GUIDES)) {
    const list = (rows.get(guide) ?? []).sort(
      (a, b) => specPath(a.url).localeCompare(specPath(b.url)) || a.method.localeCompare(b.method),
    );
    const lines = list.map(
      (r) => `| \`${r.method} ${specPath(r.url)}\`${r.dashboardOnly ? '*' : ''} | \`${r.permission}\` |`,
    );
    out.set(guide, ['| Endpoint | Permission |', '|---|---|', ...lines].join('\n'));
  }
  return out;
}
