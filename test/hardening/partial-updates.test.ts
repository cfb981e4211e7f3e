/**
 * Partial updates change only what the caller sends. The validator fills schema defaults in, so a
 * PATCH body schema must carry none; and each PATCH route, sent one field, keeps every other one.
 */
import { describe, expect, it } from 'vitest';
import { createDraft } from '../billing/fixtures';
import { call, createTemplate } from '../contracts/fixtures';
import { paymentApp } from '../helpers/suites';
import { companyBody, staffHeaders } from '../org/fixtures';
import { createRecurring } from '../recurring/fixtures';
import { createSchedule } from '../schedules/fixtures';

const suite = paymentApp();

type Schema = { $ref?: string; default?: unknown } & Record<string, unknown>;
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};

/** JSON pointers (under the operation) of every `default` in a body schema, `$ref`s followed. */
function defaultsIn(doc: Doc, schema: unknown, at: string, seen = new Set<string>()): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Schema;
  if (s.$ref) {
    const name = s.$ref.split('/').pop()!;
    if (seen.has(name)) return [];
    return defaultsIn(doc, doc.components.schemas[name], `${at}(${name})`, new Set([...seen, name]));
  }
  const here = 'default' in s ? [at] : [];
  return here.concat(Object.entries(s).flatMap(([k, v]) => defaultsIn(doc, v, `${at}/${k}`, seen)));
}

/** The stored resource minus what a PATCH legitimately moves. */
const stable = (v: Record<string, unknown>, changed: string[]) => {
  const out = { ...v };
  for (const k of ['updated_at', 'version', ...changed]) delete out[k];
  return out;
};

describe('partial updates', () => {
  it('no PATCH body (nor a PUT body that is partial by design) in the document carries a default', () => {
    const doc = suite.ctx.app.swagger() as unknown as Doc;
    const found: string[] = [];
    let patches = 0;
    const bodyOf = (op: { requestBody?: { content: Record<string, { schema: Schema }> } }) => {
      const s = op.requestBody?.content['application/json']?.schema;
      return s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s;
    };
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        // A PUT with no required field takes what it is sent and keeps the rest (partial by design).
        const partialPut = method === 'put' && !(bodyOf(op)?.required as string[] | undefined)?.length;
        if (method !== 'patch' && !partialPut) continue;
        patches++;
        for (const [type, c] of Object.entries(op.requestBody?.content ?? {}))
          found.push(...defaultsIn(doc, c.schema, `PATCH ${path} ${type}`));
      }
    expect(patches).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });

  it('PATCH /contracts/workflows/{id} with only a name keeps expiry, delivery, reminders and cc', async () => {
    const api = call(suite.ctx, suite.w.caller);
    const t = await createTemplate(suite.ctx, suite.w.caller);
    const created = await api('POST', '/contracts/workflows', {
      name: 'Quiet flow',
      description: 'No emails',
      template_ids: [t.template_id],
      expires_in_days: 10,
      reminder_interval_days: 3,
      delivery: 'none',
      cc_recipients: [{ email: 'legal@example.com', when: 'on_send' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const before = created.json();
    const res = await api('PATCH', `/contracts/workflows/${before.flow_id}`, { name: 'Renamed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().name).toBe('Renamed');
    expect(stable(res.json(), ['name'])).toEqual(stable(before, ['name']));
    expect(res.json()).toMatchObject({ expires_in_days: 10, delivery: 'none', reminder_interval_days: 3 });
  });

  it('PATCH /contracts/templates/{id} with only a name keeps roles, fields and the document', async () => {
    const api = call(suite.ctx, suite.w.caller);
    const t = await createTemplate(suite.ctx, suite.w.caller);
    const before = (await api('GET', `/contracts/templates/${t.template_id}`)).json();
    const res = await api('PATCH', `/contracts/templates/${t.template_id}`, { name: 'Renamed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(stable(res.json(), ['name'])).toEqual(stable(before, ['name']));
    // A role sent without signing_order still gets create's default, from the service.
    const roles = before.roles.map((r: { role: string; kind: string }, i: number) =>
      i === 0 ? { role: r.role, kind: r.kind } : r,
    );
    const edited = await api('PATCH', `/contracts/templates/${t.template_id}`, { roles });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().roles[0].signing_order).toBe(1);
  });

  describe('every other PATCH route, sent one field, keeps the rest', () => {
    /** GET before, PATCH `body`, GET after: only the sent fields (and `also`) changed. */
    async function keepsTheRest(
      headers: Record<string, string>,
      url: string,
      body: Record<string, unknown>,
      opts: {
        getUrl?: string;
        also?: string[];
        pick?: (v: Record<string, unknown>) => Record<string, unknown>;
      } = {},
    ) {
      const get = async () => {
        const res = await suite.ctx.app.inject({ url: `/api/v1${opts.getUrl ?? url}`, headers });
        expect(res.statusCode, `${opts.getUrl ?? url}: ${res.body}`).toBe(200);
        const v = res.json() as Record<string, unknown>;
        return opts.pick ? opts.pick(v) : v;
      };
      const before = await get();
      const res = await suite.ctx.app.inject({
        method: 'PATCH',
        url: `/api/v1${url}`,
        headers,
        payload: body,
      });
      expect(res.statusCode, `PATCH ${url}: ${res.body}`).toBe(200);
      const after = await get();
      const changed = [...Object.keys(body), ...(opts.also ?? [])];
      expect(stable(after, changed), `PATCH ${url} ${JSON.stringify(body)}`).toEqual(stable(before, changed));
      if (!opts.pick)
        for (const [k, v] of Object.entries(body)) if (typeof v !== 'object') expect(after[k], k).toEqual(v);
    }
    const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
      suite.ctx.app.inject({
        method: method as 'GET',
        url: `/api/v1${url}`,
        headers,
        payload: payload as object,
      });

    it('PATCH /projects/{id}', async () => {
      await keepsTheRest(suite.w.caller.headers, `/projects/${suite.w.projectId}`, {
        project_name: 'Renamed shop',
      });
    });

    it('PATCH /opcos/{id} (a draft)', async () => {
      const opco = await api('POST', '/opcos', suite.w.caller.headers, companyBody());
      expect(opco.statusCode, opco.body).toBe(201);
      await keepsTheRest(suite.w.caller.headers, `/opcos/${opco.json().opco_id}`, { name: 'Renamed opco' });
    });

    it('PATCH /webhooks/destinations/{id}', async () => {
      const d = await api('POST', '/webhooks/destinations', suite.w.caller.headers, {
        url: 'https://merchant.example.com/hooks/a',
        event_types: ['payment.status_changed'],
        description: 'Payments',
        enabled: false,
      });
      expect(d.statusCode, d.body).toBe(201);
      await keepsTheRest(suite.w.caller.headers, `/webhooks/destinations/${d.json().destination_id}`, {
        description: 'Payments (renamed)',
      });
    });

    it('PATCH /tickets/{id} and PATCH /admin/tickets/{id}', async () => {
      const t = await api('POST', '/tickets', suite.w.caller.headers, {
        subject: 'Partial',
        body: 'Hello',
        category: 'technical',
        priority: 'high',
        cc_emails: ['cc@example.com'],
      });
      expect(t.statusCode, t.body).toBe(201);
      const id = t.json().ticket_id;
      await keepsTheRest(suite.w.caller.headers, `/tickets/${id}`, { priority: 'urgent' });
      const staff = await staffHeaders(suite.ctx);
      await keepsTheRest(staff.headers, `/admin/tickets/${id}`, { category: 'billing' });
    });

    it('PATCH /payment-schedules/{id} and …/instalments/{id}', async () => {
      const sc = await createSchedule(suite.ctx, suite.w, {
        plan: { total_amount: '30.00', count: 3, interval: 'month', start_date: '2027-01-31' },
        description: 'Sofa',
        delivery: 'none',
        metadata: { order: '7' },
      });
      await keepsTheRest(suite.w.caller.headers, `/payment-schedules/${sc.schedule_id}`, {
        description: 'Big sofa',
      });
      const last = sc.instalments[2]!;
      await keepsTheRest(
        suite.w.caller.headers,
        `/payment-schedules/${sc.schedule_id}/instalments/${last.instalment_id}`,
        { due_date: '2027-04-15' },
        {
          getUrl: `/payment-schedules/${sc.schedule_id}`,
          // The instalment's own issue date follows its due date.
          pick: (v) => ({
            ...v,
            instalments: (v.instalments as Record<string, unknown>[]).map((i) =>
              i.instalment_id === last.instalment_id ? { ...i, due_date: undefined, issue_at: undefined } : i,
            ),
          }),
        },
      );
    });

    it('PATCH /screening/wallets/{id}', async () => {
      const s = await api('POST', '/screening/wallet', suite.w.caller.headers, {
        chain: 'ethereum',
        address: `0x${'c'.repeat(39)}2`,
        label: 'Treasury',
        user_id: suite.w.userId,
      });
      expect(s.statusCode, s.body).toBeLessThan(300);
      await keepsTheRest(suite.w.caller.headers, `/screening/wallets/${s.json().wallet_id}`, {
        monitored: true,
      });
    });

    it('PATCH /notifications/{id}', async () => {
      const job = await api(
        'POST',
        '/checkout/paylink/bulk',
        { ...suite.w.caller.headers, 'x-idempotency-key': `n-${Date.now()}` },
        {
          rows: [{ amount: '1.00', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId }],
          preview: true,
        },
      );
      expect(job.statusCode, job.body).toBe(201);
      await api('POST', `/checkout/paylink/bulk/${job.json().bulk_id}/cancel`, suite.w.caller.headers, {});
      const list = (await api('GET', '/notifications', suite.w.caller.headers)).json();
      const n = list.notifications[0];
      expect(n, JSON.stringify(list)).toBeDefined();
      await keepsTheRest(
        suite.w.caller.headers,
        `/notifications/${n.notification_id}`,
        { read: true },
        {
          getUrl: '/notifications',
          // Reading a notification also marks it seen; `archived_at` and the rest stay.
          also: ['read_at', 'seen_at'],
          pick: (v) => {
            const one = (v.notifications as Record<string, unknown>[]).find(
              (x) => x.notification_id === n.notification_id,
            )!;
            return { ...one, read: one.read_at !== null };
          },
        },
      );
    });

    it('PATCH /recurring-payments/{id}', async () => {
      const r = await createRecurring(suite.ctx, suite.w, { description: 'Gym', metadata: { plan: 'gold' } });
      await keepsTheRest(suite.w.caller.headers, `/recurring-payments/${r.definition_id}`, {
        description: 'Gym plus',
      });
    });

    it('PATCH /admin/clients/{id} and PATCH /admin/billing/invoices/{id}', async () => {
      const staff = await staffHeaders(suite.ctx);
      await keepsTheRest(staff.headers, `/admin/clients/${suite.w.caller.clientId}`, {
        kyc_links_enabled: false,
      });
      const draft = await createDraft(suite.ctx, staff.headers, suite.w.caller.clientId, {
        purchase_order_number: 'PO-1',
      });
      await keepsTheRest(staff.headers, `/admin/billing/invoices/${draft.invoice_id}`, { due_in_days: 21 });
    });
  });
});
