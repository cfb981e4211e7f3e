/**
 * Every id a create or update body stores is checked the moment it is stored (cross-client sweep).
 * For each (route, field) of REFERENCES: another client's id and a random id are each refused with
 * the resource's 404 (`<Resource> not found`) and nothing is written anywhere; the caller's own id
 * is accepted, which proves the rest of the body is valid and the 404 came from the field.
 *
 * A new route with an id field: add a row (or, when the id is not ours to check, an entry in
 * NOT_REFERENCES with the reason). The last test walks the OpenAPI document and fails on any
 * `*_id`/`*_ids`/uuid body field of a POST/PUT/PATCH that is in neither table.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { M } from '../../src/shared/messages';
import { createTemplate } from '../contracts/fixtures';
import { createTestApp, type TestContext } from '../helpers/app';
import { staffHeaders } from '../org/fixtures';
import { createPaylink, createPaymentWorld, newKey, type PaymentWorld } from '../payments/fixtures';
import { recurringBody } from '../recurring/fixtures';

type Json = Record<string, unknown>;

/** The resources of one client that rows point at. */
interface World extends PaymentWorld {
  templateId: string;
  flowId: string;
  requestId: string;
  participantId: string;
  completedRequestId: string;
  closedTicketId: string;
  staffId: string;
  transactionId: string;
}
type Kind =
  | 'user'
  | 'business_customer'
  | 'project'
  | 'opco'
  | 'template'
  | 'flow'
  | 'completed_request'
  | 'participant'
  | 'closed_ticket'
  | 'client'
  | 'staff'
  | 'transaction';
const idOf = (w: World, kind: Kind): string =>
  ({
    user: w.userId,
    business_customer: w.businessCustomerId,
    project: w.projectId,
    opco: w.opcoId,
    template: w.templateId,
    flow: w.flowId,
    completed_request: w.completedRequestId,
    participant: w.participantId,
    closed_ticket: w.closedTicketId,
    client: w.caller.clientId,
    staff: w.staffId,
    transaction: w.transactionId,
  })[kind];

interface Row {
  /** `METHOD /path` as the OpenAPI document names it, without /api/v1. */
  route: string;
  /** The field as the OpenAPI walk names it (`[]` for array items). */
  field: string;
  kind: Kind;
  /** The 404 detail for an unknown id (and, unless `foreign` says otherwise, another client's). */
  detail: string;
  /** Where the spec fixes another answer for another client's id. */
  foreign?: { status: number; detail: string };
  /** Staff routes see every client: only the random id applies. */
  staff?: true;
  url?: (w: World) => string;
  body: (w: World, ref: string) => Json;
  idempotent?: true;
}

const evm = () => `0x${randomUUID().replace(/-/g, '')}${'0'.repeat(8)}`;
const paylink = (w: World, over: Json) => ({
  amount: '12.50',
  currency: 'EUR',
  project_id: w.projectId,
  user_id: w.userId,
  ...over,
});
const schedule = (w: World, over: Json) => ({
  project_id: w.projectId,
  user_id: w.userId,
  currency: 'EUR',
  plan: { total_amount: '100.00', count: 2, interval: 'month', start_date: '2026-03-01' },
  ...over,
});
const signers = (client: Json = {}) => [
  { role: 'client', name: 'Cleo Client', email: `cleo-${randomUUID()}@example.com`, ...client },
  { role: 'company', name: 'Cory Company', email: `cory-${randomUUID()}@example.com` },
];
const send = (w: World, over: Json) => ({ template_id: w.templateId, participants: signers(), ...over });
const flow = (w: World, over: Json) => ({ name: 'Onboarding', template_ids: [w.templateId], ...over });
const flowPayment = (project: string) => ({
  currency: 'EUR',
  amount: '20.00',
  project_id: project,
  payer_role: 'client',
});
const monitored = (over: Json) => ({
  client_reference: `ref-${randomUUID()}`,
  direction: 'outbound',
  amount: '100.00',
  currency: 'EUR',
  counterparty: { name: 'Bob Counterparty', type: 'natural', country: 'FR', account_identifier: 'FR76' },
  ...over,
});
const transfer = (over: Json) => {
  const address = evm();
  return {
    asset: 'ETH',
    chain: 'ethereum',
    amount: '1.5',
    fiat_value: { amount: '2500.00', currency: 'EUR' },
    originator: {
      type: 'natural',
      first_name: 'Alice',
      last_name: 'Sender',
      account_number: evm(),
      address: { street: '1 Main St', city: 'Berlin', postal_code: '10115', country: 'DE' },
    },
    beneficiary: { type: 'natural', first_name: 'Bob', last_name: 'Receiver', account_number: address },
    counterparty_wallet: { address },
    client_reference: `tr-${randomUUID()}`,
    ...over,
  };
};
const workflow = (node: Json) => ({
  name: 'wf',
  graph: { trigger: { type: 'manual' }, nodes: [{ id: 'n1', ...node }] },
});

const REFERENCES: Row[] = [
  {
    route: 'POST /projects',
    field: 'opco_id',
    kind: 'opco',
    detail: M.opcoNotFound,
    foreign: { status: 400, detail: M.opcoOtherClient },
    body: (_w, ref) => ({ project_name: 'Shop', opco_id: ref }),
  },
  {
    route: 'PATCH /projects/{project_id}',
    field: 'opco_id',
    kind: 'opco',
    detail: M.opcoNotFound,
    foreign: { status: 400, detail: M.opcoOtherClient },
    url: (w) => `/projects/${w.projectId}`,
    body: (_w, ref) => ({ opco_id: ref }),
  },
  ...(['project_id', 'user_id', 'business_customer_id'] as const).map(
    (field): Row => ({
      route: 'POST /checkout/paylink',
      field,
      kind: field === 'project_id' ? 'project' : field === 'user_id' ? 'user' : 'business_customer',
      detail: field === 'project_id' ? M.projectNotFound : M.userNotFoundCreateFirst,
      idempotent: true,
      body: (w, ref) =>
        field === 'business_customer_id'
          ? paylink(w, { user_id: undefined, business_customer_id: ref })
          : paylink(w, { [field]: ref }),
    }),
  ),
  {
    route: 'POST /checkout/paylink',
    field: 'contract_request_id',
    kind: 'completed_request',
    detail: 'Contract request not found',
    idempotent: true,
    body: (w, ref) => paylink(w, { contract_request_id: ref }),
  },
  {
    route: 'POST /checkout/paylink/bulk',
    field: 'defaults.project_id',
    kind: 'project',
    detail: M.projectNotFound,
    idempotent: true,
    body: (w, ref) => ({
      rows: [{ amount: '5.00', currency: 'EUR', user_id: w.userId, reference: 'r1' }],
      defaults: { project_id: ref },
    }),
  },
  ...(['project_id', 'user_id', 'business_customer_id'] as const).flatMap((field): Row[] =>
    (
      [
        ['POST /payment-schedules', schedule],
        ['POST /recurring-payments', recurringBody],
      ] as const
    ).map(([route, make]) => ({
      route,
      field,
      kind: field === 'project_id' ? 'project' : field === 'user_id' ? 'user' : 'business_customer',
      detail: field === 'project_id' ? M.projectNotFound : M.userNotFoundCreateFirst,
      idempotent: true,
      body: (w: World, ref: string) =>
        field === 'business_customer_id'
          ? make(w, { user_id: undefined, business_customer_id: ref })
          : make(w, { [field]: ref }),
    })),
  ),
  ...(
    [
      ['user_id', 'user', M.userNotFound],
      ['business_customer_id', 'business_customer', M.businessCustomerNotFound],
      ['transaction_id', 'transaction', M.transactionNotFound],
    ] as const
  ).map(
    ([field, kind, detail]): Row => ({
      route: 'POST /monitoring/transactions',
      field,
      kind,
      detail,
      body: (w, ref) =>
        monitored(field === 'transaction_id' ? { user_id: w.userId, transaction_id: ref } : { [field]: ref }),
    }),
  ),
  ...(['user_id', 'business_customer_id'] as const).flatMap((field): Row[] => {
    const kind = field === 'user_id' ? 'user' : 'business_customer';
    const detail = field === 'user_id' ? M.userNotFound : M.businessCustomerNotFound;
    return [
      {
        route: 'POST /screening/wallet',
        field,
        kind,
        detail,
        body: (_w, ref) => ({ chain: 'ethereum', address: evm(), [field]: ref }),
      },
      {
        route: 'PATCH /screening/wallets/{wallet_id}',
        field,
        kind,
        detail,
        url: () => `/screening/wallets/${walletId}`,
        body: (_w, ref) => ({ [field]: ref }),
      },
      {
        route: 'POST /screening/wallet-ownership/requests',
        field,
        kind,
        detail,
        body: (_w, ref) => ({ chain: 'ethereum', address: evm(), [field]: ref }),
      },
      {
        route: 'POST /travel-rule/transfers',
        field,
        kind,
        detail,
        body: (_w, ref) => transfer({ [field]: ref }),
      },
    ];
  }),
  {
    route: 'POST /contracts/workflows',
    field: 'template_ids',
    kind: 'template',
    detail: 'Contract template not found',
    body: (w, ref) => flow(w, { template_ids: [ref] }),
  },
  {
    route: 'POST /contracts/workflows',
    field: 'payment.project_id',
    kind: 'project',
    detail: M.projectNotFound,
    body: (w, ref) => flow(w, { payment: flowPayment(ref) }),
  },
  {
    route: 'PATCH /contracts/workflows/{flow_id}',
    field: 'template_ids',
    kind: 'template',
    detail: 'Contract template not found',
    url: () => `/contracts/workflows/${draftFlowId}`,
    body: (_w, ref) => ({ template_ids: [ref] }),
  },
  {
    route: 'PATCH /contracts/workflows/{flow_id}',
    field: 'payment.project_id',
    kind: 'project',
    detail: M.projectNotFound,
    url: () => `/contracts/workflows/${draftFlowId}`,
    body: (_w, ref) => ({ payment: flowPayment(ref) }),
  },
  {
    route: 'POST /contracts/send',
    field: 'template_id',
    kind: 'template',
    detail: 'Contract template not found',
    body: (w, ref) => send(w, { template_id: ref }),
  },
  {
    route: 'POST /contracts/send',
    field: 'flow_id',
    kind: 'flow',
    detail: 'Contract flow not found',
    body: (w, ref) => send(w, { template_id: undefined, flow_id: ref }),
  },
  {
    route: 'POST /contracts/send',
    field: 'participants[].user_id',
    kind: 'user',
    detail: M.userNotFound,
    body: (w, ref) => send(w, { participants: signers({ user_id: ref }) }),
  },
  {
    route: 'POST /contracts/send',
    field: 'participants[].business_customer_id',
    kind: 'business_customer',
    detail: M.businessCustomerNotFound,
    body: (w, ref) => send(w, { participants: signers({ business_customer_id: ref }) }),
  },
  ...(['project_id', 'user_id', 'business_customer_id'] as const).map(
    (field): Row => ({
      route: 'POST /contracts/send',
      field: `payment.${field}`,
      kind: field === 'project_id' ? 'project' : field === 'user_id' ? 'user' : 'business_customer',
      detail: field === 'project_id' ? M.projectNotFound : M.userNotFoundCreateFirst,
      body: (w, ref) =>
        send(w, {
          payment: {
            amount: '30.00',
            currency: 'EUR',
            project_id: w.projectId,
            ...(field === 'business_customer_id' ? {} : { user_id: w.userId }),
            [field]: ref,
          },
        }),
    }),
  ),
  {
    route: 'POST /contracts/requests/{contract_request_id}/remind',
    field: 'participant_ids',
    kind: 'participant',
    detail: 'Participant not found',
    url: (w) => `/contracts/requests/${w.requestId}/remind`,
    body: (_w, ref) => ({ participant_ids: [ref] }),
  },
  {
    route: 'POST /sandbox/contracts/requests/{contract_request_id}/simulate',
    field: 'participant_id',
    kind: 'participant',
    detail: 'Participant not found',
    url: (w) => `/sandbox/contracts/requests/${w.requestId}/simulate`,
    body: (_w, ref) => ({ action: 'view', participant_id: ref }),
  },
  {
    route: 'POST /tickets',
    field: 'follow_up_of',
    kind: 'closed_ticket',
    detail: M.ticketNotFound,
    body: (_w, ref) => ({ subject: 'Again', body: 'Still late', category: 'payments', follow_up_of: ref }),
  },
  {
    route: 'PATCH /admin/tickets/{ticket_id}',
    field: 'assignee_staff_id',
    kind: 'staff',
    detail: 'Staff account not found',
    staff: true,
    url: (w) => `/admin/tickets/${w.closedTicketId}`,
    body: (_w, ref) => ({ assignee_staff_id: ref }),
  },
  {
    route: 'POST /admin/billing/invoices',
    field: 'client_id',
    kind: 'client',
    detail: M.clientNotFound,
    staff: true,
    body: (_w, ref) => ({
      client_id: ref,
      currency: 'EUR',
      period_start: '2026-01-01',
      period_end: '2026-01-31',
      lines: [{ description: 'Setup', category: 'other', quantity: 1, unit_amount: '5' }],
    }),
  },
  {
    route: 'POST /admin/notifications',
    field: 'client_id',
    kind: 'client',
    detail: M.clientNotFound,
    staff: true,
    body: (_w, ref) => ({
      client_id: ref,
      severity: 'info',
      category: 'system',
      title: 'Maintenance',
      body: 'Tonight',
    }),
  },
  // Workflow node configs are free-form in the document; literal ids in them are checked on save.
  ...(
    [
      ['kyc', 'user_id', 'user', M.userNotFound, {}],
      ['kyb', 'business_customer_id', 'business_customer', M.businessCustomerNotFound, {}],
      ['transfer', 'project_id', 'project', M.projectNotFound, { amount: '5.00', currency: 'EUR' }],
      ['transfer', 'user_id', 'user', M.userNotFound, { amount: '5.00', currency: 'EUR', project_id: '' }],
      ['opco', 'opco_id', 'opco', M.opcoNotFound, {}],
      ['project', 'project_id', 'project', M.projectNotFound, {}],
      ['contract', 'template_id', 'template', 'Contract template not found', {}],
    ] as const
  ).flatMap(([type, key, kind, detail, rest]): Row[] => {
    const config = (w: World, ref: string): Json => {
      if (type === 'contract') return { template_id: ref, participants: signers() };
      const base: Json = { ...rest };
      if ('project_id' in base) base.project_id = w.projectId;
      return { ...base, [key]: ref };
    };
    return [
      {
        route: 'POST /workflows',
        field: `graph.nodes[${type}].config.${key}`,
        kind,
        detail,
        body: (w, ref) => workflow({ type, config: config(w, ref) }),
      },
      {
        route: 'PUT /workflows/{definition_id}',
        field: `graph.nodes[${type}].config.${key}`,
        kind,
        detail,
        url: () => `/workflows/${draftWorkflowId}`,
        body: (w, ref) => workflow({ type, config: config(w, ref) }),
      },
    ];
  }),
];

/** Body fields that hold an id we do not own or check, with the reason. */
const NOT_REFERENCES: Record<string, string> = {
  'POST /opcos parent_sub_tpp_id': "the bank's Sub-TPP id of a parent opco, not one of our ids",
  'PATCH /opcos/{opco_id} parent_sub_tpp_id': "the bank's Sub-TPP id of a parent opco, not one of our ids",
  'POST /providers/verification/notifications event_id': "the provider's notification id",
  'POST /providers/bank/notifications event_id': "the provider's notification id",
  'POST /providers/bank/notifications ref_id':
    'the payment reference the bank echoes (unknown ones are ignored)',
  'POST /providers/bank/notifications transfer_id': "the bank's transfer id",
  'POST /providers/screening/notifications event_id': "the provider's notification id",
  'POST /providers/travel-rule/notifications event_id': "the network's notification id",
  'POST /monitoring/transactions customer.external_id': "the merchant's own customer reference",
  'PUT /monitoring/policy rules[].rule_id': 'a slug the body itself defines',
  'POST /monitoring/policy/test transaction.user_id': 'a dry run: stores nothing',
  'POST /monitoring/policy/test transaction.business_customer_id': 'a dry run: stores nothing',
  'POST /monitoring/policy/test transaction.customer.external_id': 'a dry run: stores nothing',
  'POST /monitoring/policy/test transaction.transaction_id': 'a dry run: stores nothing',
  'POST /monitoring/policy/test policy.rules[].rule_id': 'a slug the body itself defines',
  'POST /monitoring/policy/backtest policy.rules[].rule_id': 'a slug the body itself defines',
  'POST /travel-rule/transfers originator.customer_id': "IVMS101: the VASP's own customer identifier",
  'POST /travel-rule/transfers beneficiary.customer_id': "IVMS101: the VASP's own customer identifier",
  'POST /travel-rule/transfers beneficiary_vasp_id':
    'a directory entry, not a client resource; 404 VASP not found in test/travel-rule',
  'PATCH /travel-rule/transfers/{transfer_id} originator.customer_id':
    "IVMS101: the VASP's own customer identifier",
  'PATCH /travel-rule/transfers/{transfer_id} beneficiary.customer_id':
    "IVMS101: the VASP's own customer identifier",
  'POST /sandbox/travel-rule/inbound originator.customer_id': "IVMS101: the VASP's own customer identifier",
  'POST /sandbox/travel-rule/inbound beneficiary.customer_id': "IVMS101: the VASP's own customer identifier",
  'POST /contracts/templates fields[].field_id': 'a key the body itself defines',
  'PATCH /contracts/templates/{template_id} fields[].field_id': 'a key the body itself defines',
  'POST /contracts/send document.fields[].field_id': 'a key the body itself defines',
  'POST /recurring-payments/{definition_id}/retry run_id':
    "selects one of the path's own runs (404 Run not found in test/recurring); stores no reference",
};

let ctx: TestContext;
let mine: World;
let theirs: World;
let staff: Record<string, string>;
let walletId: string;
let draftFlowId: string;
let draftWorkflowId: string;

function call(method: string, url: string, headers: Record<string, string>, payload?: Json) {
  return ctx.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
}
async function ok(method: string, url: string, headers: Record<string, string>, payload?: Json) {
  const res = await call(method, url, headers, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url} ${res.statusCode}: ${res.body}`);
  return res.json() as Json;
}

async function createWorld(staffId: string): Promise<World> {
  const w = await createPaymentWorld(ctx);
  const h = w.caller.headers;
  const { template_id: templateId } = await createTemplate(ctx, w.caller);
  const flowId = (await ok('POST', '/contracts/workflows', h, { name: 'f', template_ids: [templateId] }))
    .flow_id as string;
  await ok('POST', `/contracts/workflows/${flowId}/activate`, h);
  const req = await ok('POST', '/contracts/send', h, { template_id: templateId, participants: signers() });
  const completed = await ok('POST', '/contracts/send', h, {
    template_id: templateId,
    participants: signers(),
  });
  await ctx.db.execute(
    sql`update contract_requests set status = 'completed', completed_at = now() where id = ${completed.contract_request_id as string}::uuid`,
  );
  const ticket = await ok('POST', '/tickets', h, {
    subject: 'Late',
    body: 'Payouts late',
    category: 'payments',
  });
  await ctx.db.execute(
    sql`update tickets set status = 'closed', closed_at = now() where id = ${ticket.ticket_id as string}::uuid`,
  );
  const payment = await createPaylink(ctx, w);
  await ok('PUT', '/travel-rule/settings', h, { originator_vasp: { name: 'Acme VASP', country: 'DE' } });
  return {
    ...w,
    templateId,
    flowId,
    requestId: req.contract_request_id as string,
    participantId: (req.participants as { participant_id: string; role: string }[]).find(
      (p) => p.role === 'client',
    )!.participant_id,
    completedRequestId: completed.contract_request_id as string,
    closedTicketId: ticket.ticket_id as string,
    staffId,
    transactionId: payment.transaction_id,
  };
}

/** Rows of every table, so a refused request provably wrote nothing. */
async function tableCounts(): Promise<Record<string, number>> {
  const tables = rowsOf<{ t: string }>(
    await ctx.db.execute(
      sql`select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
    ),
  ).map((r) => r.t);
  const union = sql.join(
    tables.map((t) => sql`select ${t} as t, count(*)::int as n from ${sql.identifier(t)}`),
    sql` union all `,
  );
  return Object.fromEntries(
    rowsOf<{ t: string; n: number }>(await ctx.db.execute(union)).map((r) => [r.t, r.n]),
  );
}

beforeAll(async () => {
  ctx = await createTestApp();
  const s = await staffHeaders(ctx);
  staff = s.headers;
  const staffId = rowsOf<{ id: string }>(
    await ctx.db.execute(sql`select id from staff_accounts where email = ${s.email}`),
  )[0]!.id;
  mine = await createWorld(staffId);
  theirs = await createWorld(staffId);
  const h = mine.caller.headers;
  walletId = (await ok('POST', '/screening/wallet', h, { chain: 'ethereum', address: evm() }))
    .wallet_id as string;
  draftFlowId = (
    await ok('POST', '/contracts/workflows', h, { name: 'draft', template_ids: [mine.templateId] })
  ).flow_id as string;
  draftWorkflowId = (await ok('POST', '/workflows', h, workflow({ type: 'wait', config: { seconds: 5 } })))
    .definition_id as string;
}, 120_000);
afterAll(() => ctx?.close());

describe('ids a body stores are checked when stored (another client, random)', () => {
  it.each(REFERENCES.map((r) => [`${r.route} ${r.field}`, r] as const))('%s', async (_name, row) => {
    const [method, path] = row.route.split(' ') as [string, string];
    const url = row.url ? row.url(mine) : path;
    const headers = () => ({
      ...(row.staff ? staff : mine.caller.headers),
      ...(row.idempotent ? { 'x-idempotency-key': newKey() } : {}),
    });
    const before = await tableCounts();
    const tries: [string, { status: number; detail: string }][] = [
      [randomUUID(), { status: 404, detail: row.detail }],
    ];
    if (!row.staff) tries.push([idOf(theirs, row.kind), row.foreign ?? { status: 404, detail: row.detail }]);
    for (const [ref, want] of tries) {
      const res = await call(method, url, headers(), row.body(mine, ref));
      expect({ status: res.statusCode, body: res.json() }, `${row.route} ${row.field} = ${ref}`).toEqual({
        status: want.status,
        body: { detail: want.detail },
      });
    }
    expect(await tableCounts()).toEqual(before);
    const own = await call(method, url, headers(), row.body(mine, idOf(mine, row.kind)));
    expect(own.statusCode, own.body).toBeLessThan(300);
  });
});

/** `METHOD /path field` of every body field of a write that looks like an id, from the OpenAPI document. */
function idFieldsOfDocument(): string[] {
  type S = {
    $ref?: string;
    type?: string;
    format?: string;
    items?: S;
    properties?: Record<string, S>;
    anyOf?: S[];
    oneOf?: S[];
    allOf?: S[];
  };
  const doc = ctx.app.swagger() as unknown as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: S }> } }>>;
    components?: { schemas?: Record<string, S> };
  };
  const deref = (s: S | undefined): S | undefined =>
    s?.$ref ? deref(doc.components?.schemas?.[s.$ref.split('/').pop()!]) : s;
  const out = new Set<string>();
  const walk = (raw: S | undefined, at: string, key: string) => {
    const s = deref(raw);
    if (!s) return;
    for (const x of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(x, at, key);
    if (s.items) walk(s.items, `${at}[]`, key);
    const name = at.replace(/\[\]$/, '');
    if (at && (/_ids?$/.test(name) || s.format === 'uuid')) out.add(`${key} ${name}`);
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, at ? `${at}.${k}` : k, key);
  };
  for (const [p, item] of Object.entries(doc.paths))
    for (const [m, op] of Object.entries(item)) {
      if (!['post', 'put', 'patch'].includes(m)) continue;
      const key = `${m.toUpperCase()} ${p.replace(/^\/api\/v1/, '')}`;
      for (const c of Object.values(op.requestBody?.content ?? {})) walk(c.schema, '', key);
    }
  return [...out].sort();
}

describe('the sweep covers every id field', () => {
  it('every id-like body field of a POST/PUT/PATCH is checked above or listed with a reason', () => {
    const covered = new Set([
      ...REFERENCES.map((r) => `${r.route} ${r.field.replace(/\[\]$/, '')}`),
      ...Object.keys(NOT_REFERENCES),
    ]);
    expect(idFieldsOfDocument().filter((f) => !covered.has(f))).toEqual([]);
  });

  it('names only routes that exist', () => {
    const doc = ctx.app.swagger() as unknown as { paths: Record<string, Record<string, unknown>> };
    const routes = new Set(
      Object.entries(doc.paths).flatMap(([p, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${p.replace(/^\/api\/v1/, '')}`),
      ),
    );
    const named = [
      ...REFERENCES.map((r) => r.route),
      ...Object.keys(NOT_REFERENCES).map((k) => k.split(' ').slice(0, 2).join(' ')),
    ];
    expect(named.filter((r) => !routes.has(r))).toEqual([]);
  });
});
