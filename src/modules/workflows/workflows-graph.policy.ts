/**
 * The graph format of a workflow definition, its validation (422 with a `loc` that points at the
 * offending node) and the small template resolver step configs use (`{{input.email}}`,
 * `{{steps.create.user_id}}`): a path lookup over plain data, never code evaluation.
 *
 *   {
 *     "trigger": { "type": "manual" },              // or "webhook"
 *     "nodes": [
 *       { "id": "create", "type": "create_user", "config": { "email": "{{input.email}}", "first_name": "{{input.first_name}}" }, "next": "kyc" },
 *       { "id": "kyc", "type": "kyc", "config": { "user_id": "{{steps.create.user_id}}" } }
 *     ]
 *   }
 *
 * Edges: every node but `condition` has an optional `next`; a condition has `on_true` / `on_false`
 * (either may be absent: that branch ends the run). The start node is the one node nothing points
 * at; the graph must be acyclic and every node reachable from the start.
 */
import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import { forbidden, ValidationError, type ValidationIssue } from '../../shared/errors';
import type { Permission } from '../auth/team/permissions.policy';
import { WorkflowMessages } from './workflows.messages';

export const NODE_TYPES = [
  'kyc',
  'kyb',
  'contract',
  'transfer',
  'condition',
  'opco',
  'project',
  'http',
  'opco_create',
  'set',
  'notify',
  'email',
  'wait',
  'create_user',
  'create_business_customer',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** Node types that have no backing capability in this service yet: accepted in drafts, refused at publish. */
export const UNSUPPORTED_NODE_TYPES: readonly NodeType[] = [];

/**
 * A node acts with the client's authority, so a workflow may only contain what the person
 * publishing it (and, through the API, the person starting it) may do directly: a developer
 * cannot create payments by way of a workflow when the role cannot create them itself.
 */
export const NODE_PERMISSIONS: Partial<Record<NodeType, Permission>> = {
  transfer: 'payments.write',
  kyc: 'kyc.users.write',
  create_user: 'kyc.users.write',
  kyb: 'kyb.businesses.write',
  create_business_customer: 'kyb.businesses.write',
  opco: 'opcos.read',
  opco_create: 'opcos.write',
  project: 'projects.read',
  contract: 'contracts.send',
};

/** 403 naming the first node whose use case the caller's permissions do not cover. */
export function assertMayUseNodes(graph: Graph, permissions: ReadonlySet<Permission>): void {
  for (const n of graph.nodes) {
    const needed = NODE_PERMISSIONS[n.type];
    if (needed && !permissions.has(needed))
      throw forbidden(WorkflowMessages.nodeNotPermitted(n.id, n.type, needed));
  }
}

export const TRIGGER_TYPES = ['manual', 'webhook'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const CONDITION_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'contains',
  'exists',
  'not_exists',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

const MAX_WAIT_SECONDS = 30 * 86400;

const str = (description: string, extra: object = {}) =>
  Type.String({ minLength: 1, maxLength: 2000, description, ...extra });
const opt = <T extends TSchema>(s: T) => Type.Optional(s);
const strict = { additionalProperties: false };

/** Per-type config schemas. Strings may contain `{{...}}` templates, resolved when the step runs. */
export const NODE_CONFIG_SCHEMAS: Record<NodeType, TSchema> = {
  set: Type.Object({ values: Type.Record(Type.String(), Type.Unknown()) }, strict),
  condition: Type.Object(
    {
      left: Type.Unknown({ description: 'Value or template, e.g. "{{steps.kyc.status}}"' }),
      operator: Type.Enum(CONDITION_OPERATORS),
      right: opt(Type.Unknown()),
    },
    strict,
  ),
  wait: Type.Object({ seconds: Type.Integer({ minimum: 1, maximum: MAX_WAIT_SECONDS }) }, strict),
  create_user: Type.Object(
    {
      email: str('Email or template'),
      first_name: str('First name or template'),
      last_name: opt(str('Last name')),
      external_ref: opt(str('Your reference')),
    },
    strict,
  ),
  create_business_customer: Type.Object(
    {
      company_name: str('Company name'),
      registration_number: opt(str('Registration number')),
      country: str('ISO country code'),
      email: str('Email'),
    },
    strict,
  ),
  kyc: Type.Object(
    {
      user_id: str('User id or template'),
      level: opt(str('Verification level name')),
      redirect_url: opt(str('')),
    },
    strict,
  ),
  kyb: Type.Object(
    {
      business_customer_id: str('Business customer id or template'),
      level: opt(str('Verification level name')),
    },
    strict,
  ),
  transfer: Type.Object(
    {
      project_id: str('Project id'),
      amount: str('Decimal amount string, e.g. "125.50"'),
      currency: str('ISO 4217 code'),
      user_id: opt(str('Payer user id')),
      business_customer_id: opt(str('Payer business customer id')),
      description: opt(str('Shown to the payer')),
      expires_in_seconds: opt(Type.Integer({ minimum: 60, maximum: 30 * 86400 })),
    },
    strict,
  ),
  opco: Type.Object({ opco_id: str('Opco id') }, strict),
  project: Type.Object({ project_id: str('Project id') }, strict),
  opco_create: Type.Object(
    { opco: Type.Record(Type.String(), Type.Unknown(), { description: 'A POST /opcos body' }) },
    strict,
  ),
  email: Type.Object(
    {
      to: str('Recipient email'),
      subject: str('Subject'),
      text: Type.String({ minLength: 1, maxLength: 20000 }),
    },
    strict,
  ),
  notify: Type.Object(
    { subject: str('Subject'), text: Type.String({ minLength: 1, maxLength: 20000 }) },
    strict,
  ),
  http: Type.Object(
    {
      url: str('http(s) URL'),
      method: opt(Type.Union([Type.Literal('POST'), Type.Literal('GET')])),
      headers: opt(Type.Record(Type.String(), Type.String())),
      body: opt(Type.Unknown()),
    },
    strict,
  ),
  contract: Type.Object({}, { additionalProperties: true }),
};

export const NodeSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'Unique step id',
    }),
    type: Type.Enum(NODE_TYPES, { description: 'Node kind' }),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Per-type settings' })),
    next: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Following node id' })),
    on_true: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'condition: node when true' }),
    ),
    on_false: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'condition: node when false' }),
    ),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'Display label' })),
  },
  { additionalProperties: false },
);

export const GraphSchema = Type.Object(
  {
    trigger: Type.Object(
      { type: Type.Enum(TRIGGER_TYPES) },
      {
        additionalProperties: false,
        description: '`manual` (API only) or `webhook` (also a signed trigger URL)',
      },
    ),
    nodes: Type.Array(NodeSchema, { minItems: 1, maxItems: 100 }),
  },
  {
    additionalProperties: false,
    description:
      'Nodes with unique ids; `next` (or `on_true`/`on_false` for a condition) names the following node. ' +
      'One start node (nothing points at it), no cycles, every node reachable.',
  },
);

export type Graph = Static<typeof GraphSchema>;
export type GraphNode = Static<typeof NodeSchema>;

const TEMPLATE = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/;

/** Outgoing edges of a node, with the field that holds each. */
export function edgesOf(node: GraphNode): { field: 'next' | 'on_true' | 'on_false'; target: string }[] {
  const fields = node.type === 'condition' ? (['on_true', 'on_false'] as const) : (['next'] as const);
  const out: { field: 'next' | 'on_true' | 'on_false'; target: string }[] = [];
  for (const f of fields) {
    const t = node[f];
    if (typeof t === 'string') out.push({ field: f, target: t });
  }
  return out;
}

/** Every template path found in a config value. */
function templatePaths(value: unknown, acc: string[] = []): string[] {
  if (typeof value === 'string') {
    for (const m of value.matchAll(TEMPLATE)) acc.push(m[1]!);
  } else if (Array.isArray(value)) {
    for (const v of value) templatePaths(v, acc);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) templatePaths(v, acc);
  }
  return acc;
}

function pointerSegments(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Structural and per-type checks beyond the body schema. Throws a 422 ValidationError listing
 * every problem, each `loc` starting at `["body", "graph", ...]`. Returns the start node id.
 */
export function validateGraph(graph: Graph): string {
  const base = ['body', 'graph'] as (string | number)[];
  const issues: ValidationIssue[] = [];
  const add = (loc: (string | number)[], msg: string, type = 'value_error') =>
    issues.push({ loc: [...base, ...loc], msg, type });

  const index = new Map<string, number>();
  graph.nodes.forEach((n, i) => {
    if (index.has(n.id)) add(['nodes', i, 'id'], `Duplicate node id '${n.id}'`);
    else index.set(n.id, i);
  });

  graph.nodes.forEach((n, i) => {
    const schema = NODE_CONFIG_SCHEMAS[n.type];
    const config = n.config ?? {};
    const first = [...Value.Errors(schema, config)][0];
    if (first) {
      const segs = pointerSegments(first.instancePath);
      const extra =
        first.keyword === 'additionalProperties'
          ? ` (${((first.params as { additionalProperties?: string[] }).additionalProperties ?? []).join(', ')})`
          : first.keyword === 'required'
            ? ` (${((first.params as { requiredProperties?: string[] }).requiredProperties ?? []).join(', ')})`
            : '';
      add(['nodes', i, 'config', ...segs], `Invalid ${n.type} config: ${first.message}${extra}`);
    }
    if (n.type === 'condition' && n.next != null)
      add(['nodes', i, 'next'], 'A condition node uses on_true / on_false, not next');
    if (n.type !== 'condition' && (n.on_true != null || n.on_false != null))
      add(
        ['nodes', i, n.on_true != null ? 'on_true' : 'on_false'],
        'Only a condition node has on_true / on_false',
      );
    for (const e of edgesOf(n)) {
      if (!index.has(e.target)) add(['nodes', i, e.field], `Node '${e.target}' does not exist`);
      else if (e.target === n.id) add(['nodes', i, e.field], `Node '${n.id}' points at itself`);
    }
    for (const p of templatePaths(config)) {
      const [root, stepId] = p.split('.');
      if (root !== 'input' && root !== 'steps')
        add(['nodes', i, 'config'], `Template '{{${p}}}' must start with input. or steps.`);
      else if (root === 'steps' && (!stepId || !index.has(stepId)))
        add(['nodes', i, 'config'], `Template '{{${p}}}' refers to an unknown step`);
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);

  // One start node: the only node nothing points at.
  const incoming = new Set<string>();
  for (const n of graph.nodes) for (const e of edgesOf(n)) incoming.add(e.target);
  const roots = graph.nodes.map((n, i) => ({ n, i })).filter(({ n }) => !incoming.has(n.id));
  if (roots.length === 0) {
    add(['nodes'], 'The graph has no start node (every node has an incoming edge: there is a cycle)');
    throw new ValidationError(issues);
  }
  if (roots.length > 1) {
    for (const r of roots.slice(1))
      add(
        ['nodes', r.i, 'id'],
        `Node '${r.n.id}' is a second start node: only one node may have no incoming edge`,
      );
    throw new ValidationError(issues);
  }
  const start = roots[0]!.n.id;

  // Cycles and reachability: depth-first from the start.
  const state = new Map<string, 'open' | 'done'>();
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const visit = (id: string) => {
    state.set(id, 'open');
    const node = byId.get(id)!;
    for (const e of edgesOf(node)) {
      const s = state.get(e.target);
      if (s === 'open') add(['nodes', index.get(id)!, e.field], `Edge to '${e.target}' creates a cycle`);
      else if (!s) visit(e.target);
    }
    state.set(id, 'done');
  };
  visit(start);
  graph.nodes.forEach((n, i) => {
    if (!state.has(n.id)) add(['nodes', i, 'id'], `Node '${n.id}' is unreachable from the start node`);
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return start;
}

export function startNodeOf(graph: Graph): string {
  const incoming = new Set<string>();
  for (const n of graph.nodes) for (const e of edgesOf(n)) incoming.add(e.target);
  return graph.nodes.find((n) => !incoming.has(n.id))!.id;
}

export interface TemplateContext {
  input: Record<string, unknown>;
  steps: Record<string, unknown>;
}

function lookup(ctx: TemplateContext, path: string): unknown {
  let cur: unknown = ctx;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/**
 * Resolves templates in a config value. A string that is exactly one template keeps the value's
 * type (number, object, ...); templates inside longer strings are interpolated as text. A missing
 * path resolves to null (whole) or "" (inside text).
 */
export function resolveTemplates(value: unknown, ctx: TemplateContext): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole) return lookup(ctx, whole[1]!) ?? null;
    return value.replace(TEMPLATE, (_m, p: string) => {
      const v = lookup(ctx, p);
      if (v === undefined || v === null) return '';
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveTemplates(v, ctx));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveTemplates(v, ctx)]));
  return value;
}

/** The comparison of a condition node. */
export function evaluateCondition(left: unknown, operator: ConditionOperator, right: unknown): boolean {
  const num = (v: unknown) =>
    typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  switch (operator) {
    case 'eq':
      return (
        JSON.stringify(left) === JSON.stringify(right) ||
        (left != null && right != null && String(left) === String(right))
      );
    case 'neq':
      return !evaluateCondition(left, 'eq', right);
    case 'gt':
      return num(left) > num(right);
    case 'gte':
      return num(left) >= num(right);
    case 'lt':
      return num(left) < num(right);
    case 'lte':
      return num(left) <= num(right);
    case 'in':
      return Array.isArray(right) && right.some((r) => evaluateCondition(left, 'eq', r));
    case 'contains':
      return Array.isArray(left)
        ? left.some((l) => evaluateCondition(l, 'eq', right))
        : typeof left === 'string' && right != null && left.includes(String(right));
    case 'exists':
      return left !== null && left !== undefined && left !== '';
    case 'not_exists':
      return left === null || left === undefined || left === '';
  }
}
