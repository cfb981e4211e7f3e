/**
 * The API reference reads like the domain: each domain object is one named component that every
 * operation references, no component is named after an operation or shadows a built-in (`Error`),
 * every success response and tag is described (tags link to their guide), request fields with a
 * default come out optional in openapi-typescript at its default settings, and the webhooks
 * declare typed data and the signature headers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withOfflineApp } from '../../src/cli/offline-app';
import { TAG_GUIDES } from '../../src/platform/openapi/tags';

type Schema = Record<string, unknown>;
type Doc = {
  info: { description: string };
  paths: Record<string, Record<string, Schema & { responses: Record<string, Schema> }>>;
  components: { schemas: Record<string, Schema> };
  tags: { name: string; description?: string }[];
  webhooks?: Record<string, { post: Schema & { parameters: { name: string; required: boolean }[] } }>;
};

const GUIDE_SLUGS = new Set(
  'quickstart environments roles-permissions authentication idempotency pagination errors metadata webhooks payments refunds verification opcos-projects workflows contracts monitoring screening travel-rule recurring schedules bulk-links tickets invoices notifications activity-logs sandbox operations performance dashboard'.split(
    ' ',
  ),
);

/** Domain objects (the API's resource names) and an operation that answers each. */
const DOMAIN: [name: string, method: string, path: string, status: string][] = [
  ['Transaction', 'get', '/api/v1/transactions/{transaction_id}', '200'],
  ['TransactionList', 'get', '/api/v1/transactions', '200'],
  ['Refund', 'get', '/api/v1/refunds/{refund_id}', '200'],
  ['RefundList', 'get', '/api/v1/refunds', '200'],
  ['Opco', 'get', '/api/v1/opcos/{opco_id}', '200'],
  ['OpcoList', 'get', '/api/v1/opcos', '200'],
  ['Project', 'get', '/api/v1/projects/{project_id}', '200'],
  ['User', 'get', '/api/v1/kyc/users/{user_id}', '200'],
  ['BusinessCustomer', 'get', '/api/v1/kyb/businesses/{business_customer_id}', '200'],
  ['VerificationRecord', 'get', '/api/v1/kyc/detail/{user_id}', '200'],
  ['ApiCredentialList', 'get', '/api/v1/auth/api-credentials', '200'],
  ['TeamAccountList', 'get', '/api/v1/auth/team/accounts', '200'],
  ['WebhookDestination', 'get', '/api/v1/webhooks/destinations/{destination_id}', '200'],
  ['WebhookDeliveryList', 'get', '/api/v1/webhooks/deliveries', '200'],
  ['Workflow', 'get', '/api/v1/workflows/{definition_id}', '200'],
  ['WorkflowRunDetail', 'get', '/api/v1/workflow-runs/{run_id}', '200'],
  ['ContractRequest', 'get', '/api/v1/contracts/requests/{contract_request_id}', '200'],
  ['ContractFlow', 'get', '/api/v1/contracts/workflows/{flow_id}', '200'],
  ['ContractTemplate', 'get', '/api/v1/contracts/templates/{template_id}', '200'],
  ['MonitoredTransaction', 'get', '/api/v1/monitoring/transactions/{monitored_transaction_id}', '200'],
  ['WalletScreening', 'get', '/api/v1/screening/wallet/{screening_id}', '200'],
  ['WalletOwnershipRequest', 'get', '/api/v1/screening/wallet-ownership/requests/{request_id}', '200'],
  ['TravelRuleTransfer', 'get', '/api/v1/travel-rule/transfers/{transfer_id}', '200'],
  ['RecurringPayment', 'get', '/api/v1/recurring-payments/{definition_id}', '200'],
  ['PaymentSchedule', 'get', '/api/v1/payment-schedules/{schedule_id}', '200'],
  ['BulkBatch', 'get', '/api/v1/checkout/paylink/bulk/{bulk_id}', '200'],
  ['Ticket', 'get', '/api/v1/tickets/{ticket_id}', '200'],
  ['Invoice', 'get', '/api/v1/billing/invoices/{invoice_id}', '200'],
  ['NotificationList', 'get', '/api/v1/notifications', '200'],
  ['ActivityLog', 'get', '/api/v1/activity-logs/{activity_id}', '200'],
];

let merchant: Doc;
let staff: Doc;

beforeAll(async () => {
  [merchant, staff] = await withOfflineApp({ SVC_PUBLIC_URL: 'http://localhost:8000' }, {}, async (app) => {
    const get = async (url: string) => (await app.inject({ method: 'GET', url })).json() as Doc;
    return [await get('/api/v1/openapi.json'), await get('/api/v1/admin/openapi.json')] as const;
  });
}, 120_000);

const refName = (s: unknown) => ((s as Schema | undefined)?.$ref as string | undefined)?.split('/').pop();
const jsonOf = (response: Schema | undefined) =>
  (response?.content as Record<string, Schema> | undefined)?.['application/json']?.schema as
    | Schema
    | undefined;

/** Every object schema in the document (components, paths, webhooks), with where it is. */
function objectSchemas(doc: Doc): [where: string, schema: Schema][] {
  const out: [string, Schema][] = [];
  const walk = (node: unknown, where: string) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((x, i) => {
        walk(x, `${where}[${i}]`);
      });
      return;
    }
    const obj = node as Schema;
    if (obj.type === 'object' && obj.properties) out.push([where, obj]);
    for (const [k, v] of Object.entries(obj))
      if (k !== 'example' && k !== 'examples') walk(v, `${where}.${k}`);
  };
  walk(doc.components.schemas, 'components');
  walk(doc.paths, 'paths');
  walk(doc.webhooks, 'webhooks');
  return out;
}

describe('component names', () => {
  it('has no component named Error or after an operation, and the error bodies are named', () => {
    for (const doc of [merchant, staff]) {
      expect(JSON.stringify(doc)).not.toContain('x-svc-schema-name');
      const names = Object.keys(doc.components.schemas);
      expect(names).not.toContain('Error');
      expect(names).toContain('ErrorResponse');
      expect(names).toContain('ValidationErrorResponse');
      expect(names.filter((n) => /^(Get|Post|Put|Patch|Delete)[A-Z]/.test(n))).toEqual([]);
    }
  });

  it('names each domain object once and every operation that answers it references it', () => {
    const shapes = new Map<string, string[]>();
    for (const [where, schema] of objectSchemas(merchant)) {
      const key = Object.keys(schema.properties as Schema)
        .sort()
        .join(',');
      shapes.set(key, [...(shapes.get(key) ?? []), where]);
    }
    for (const [name, method, p, status] of DOMAIN) {
      const component = merchant.components.schemas[name];
      expect(component, name).toBeDefined();
      const response = merchant.paths[p]?.[method]?.responses[status];
      expect(refName(jsonOf(response)), `${method} ${p}`).toBe(name);
      // No second schema anywhere with the same field set (the object is referenced, not repeated).
      const key = Object.keys(component!.properties as Schema)
        .sort()
        .join(',');
      expect(shapes.get(key), name).toEqual([`components.${name}`]);
    }
    const list = merchant.components.schemas.TransactionList!.properties as Record<string, Schema>;
    expect(refName(list.transactions!.items)).toBe('Transaction');
  });

  it('answers the same object under the same name on every route (the payment object once)', () => {
    const transactionRoutes = [
      ['post', '/api/v1/checkout/paylink', '201'],
      ['post', '/api/v1/checkout/paylink', '200'],
      ['post', '/api/v1/transactions/{transaction_id}/refresh-status', '200'],
      ['post', '/api/v1/checkout/intent/{transaction_id}/cancel', '200'],
      ['post', '/api/v1/sandbox/transactions/{transaction_id}/simulate', '200'],
    ] as const;
    for (const [m, p, s] of transactionRoutes)
      expect(refName(jsonOf(merchant.paths[p]![m]!.responses[s])), `${m} ${p} ${s}`).toBe('Transaction');
  });
});

describe('descriptions', () => {
  it('describes every success response (no "Default Response")', () => {
    for (const doc of [merchant, staff]) {
      expect(JSON.stringify(doc)).not.toContain('Default Response');
      for (const item of Object.values(doc.paths))
        for (const op of Object.values(item))
          for (const [status, r] of Object.entries(op.responses))
            if (/^2/.test(status)) expect((r.description as string).length).toBeGreaterThan(3);
    }
    const tx = merchant.paths['/api/v1/transactions/{transaction_id}']!.get!.responses['200']!;
    expect(tx.description).toBe('The transaction');
    expect(merchant.paths['/api/v1/transactions']!.get!.responses['200']!.description).toBe(
      'A page of transactions',
    );
  });

  it('gives every tag a description linking to its guide, and the document links to the quickstart', () => {
    for (const doc of [merchant, staff]) {
      expect(doc.tags.length).toBeGreaterThan(0);
      for (const tag of doc.tags) {
        expect(Object.keys(TAG_GUIDES), `add ${tag.name} to TAG_GUIDES`).toContain(tag.name);
        const link = /\]\(\/docs\/guides\/([a-z-]+)\)/.exec(tag.description ?? '');
        expect(link, tag.name).not.toBeNull();
        expect(GUIDE_SLUGS.has(link![1]!), `${tag.name}: ${link![1]}`).toBe(true);
      }
    }
    expect(merchant.info.description).toContain('](/docs/guides/quickstart)');
    for (const doc of [merchant, staff]) expect(JSON.stringify(doc)).not.toMatch(/README/);
  });
});

describe('webhooks', () => {
  it('types every event data as a named schema and declares both signature schemes', () => {
    const hooks = Object.entries(merchant.webhooks ?? {});
    expect(hooks.length).toBeGreaterThan(20);
    for (const [type, { post }] of hooks) {
      const body = jsonOf(post.requestBody as Schema) as { allOf: Schema[] };
      const data = refName((body.allOf[1]!.properties as Record<string, Schema>).data);
      expect(merchant.components.schemas[data!]?.properties, type).toBeDefined();
      expect(post.parameters.map((p) => p.name)).toEqual(
        expect.arrayContaining([
          'X-SVC-Timestamp',
          'X-SVC-Signature',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]),
      );
    }
  });
});

describe('request defaults', () => {
  /** The schemas a request body or parameter reaches (through references). */
  function requestSchemas(doc: Doc): Schema[] {
    const out: Schema[] = [];
    const seen = new Set<string>();
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const x of node) walk(x);
        return;
      }
      const obj = node as Schema;
      const ref = refName(obj);
      if (ref && !seen.has(ref)) {
        seen.add(ref);
        walk(doc.components.schemas[ref]);
      }
      out.push(obj);
      for (const [k, v] of Object.entries(obj)) if (k !== 'example' && k !== 'examples') walk(v);
    };
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item)) {
        walk(op.requestBody);
        walk(op.parameters);
      }
    return out;
  }

  it('shows no `default` in request schemas: the value is in x-default and the description', () => {
    const nodes = requestSchemas(merchant);
    expect(nodes.filter((n) => 'default' in n)).toEqual([]);
    const withDefault = nodes.filter((n) => 'x-default' in n);
    expect(withDefault.length).toBeGreaterThan(20);
    // A parameter's description is on the parameter (fastify-swagger moves it there).
    for (const n of nodes)
      if (n.in && n.schema && 'x-default' in (n.schema as Schema))
        withDefault.splice(withDefault.indexOf(n.schema as Schema), 1, {
          ...(n.schema as Schema),
          description: n.description,
        });
    for (const n of withDefault)
      expect(n.description).toContain(`Default: \`${JSON.stringify(n['x-default'])}\``);
  });

  describe('openapi-typescript at its default settings', () => {
    let dir: string;
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-ts-'));
      const ast = await openapiTS(merchant as unknown as Parameters<typeof openapiTS>[0]);
      fs.writeFileSync(path.join(dir, 'schema.d.ts'), astToString(ast));
    }, 60_000);
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** Type errors of `code` (a module importing `paths` from the generated schema). */
    const typeErrors = (code: string): string[] => {
      const file = path.join(dir, `check-${Math.random().toString(36).slice(2)}.ts`);
      fs.writeFileSync(file, `import type { paths } from './schema';\n${code}\n`);
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
      });
      return ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    };

    const PAYLINK = `type Body = paths['/api/v1/checkout/paylink']['post']['requestBody']['content']['application/json'];
type Query = NonNullable<paths['/api/v1/transactions']['get']['parameters']['query']>;`;

    it('compiles the README paylink call with only the required fields', () => {
      const errors = typeErrors(`${PAYLINK}
export const body: Body = { amount: '12.50', currency: 'EUR', project_id: 'p', user_id: 'u' };
export const query: Query = { status: 'success' };`);
      expect(errors).toEqual([]);
    }, 60_000);

    it('still rejects a call without a required field (the check itself works)', () => {
      const errors = typeErrors(`${PAYLINK}
export const body: Body = { amount: '12.50', currency: 'EUR', user_id: 'u' };`);
      expect(errors.join('\n')).toContain('project_id');
    }, 60_000);
  });
});
