/** Billing routes: the client's invoices, usage and details; the sandbox sample; the staff admin API. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { sendPdf } from '../../shared/download';
import { toPageParams } from '../../shared/pagination';
import { withInvoiceActions } from './billing.actions';
import {
  AdminInvoiceListSchema,
  AdminInvoiceSchema,
  AdminListInvoicesQuery,
  BillingDetailsBody,
  BillingDetailsSchema,
  ClientIdParams,
  CreateInvoiceBody,
  ErrorSchema,
  InvoiceIdParams,
  InvoiceListSchema,
  InvoiceSchema,
  ListInvoicesQuery,
  MarkPaidBody,
  PatchInvoiceBody,
  PdfSchema,
  PriceListBody,
  PriceListSchema,
  SampleInvoiceBody,
  SimulateInvoiceBody,
  UsageSchema,
  VoidBody,
} from './billing.schemas';
import {
  createSampleInvoice,
  downloadInvoicePdf,
  getBillingDetails,
  getClientInvoice,
  getPriceList,
  getUsage,
  listClientInvoices,
  putBillingDetails,
  putPriceList,
  simulateInvoice,
} from './billing.service';
import { finalizeInvoice } from './invoice-finalize.service';
import {
  createDraftInvoice,
  deleteDraftInvoice,
  getAdminInvoice,
  listAdminInvoices,
  markInvoicePaid,
  markInvoiceUncollectible,
  patchDraftInvoice,
  reissueInvoice,
  voidInvoice,
} from './invoices.service';

const tags = ['Billing'];
const adminTags = ['Admin (staff)'];
const read = { permission: 'billing.read' as const };
const staff = { auth: 'staff' as const };
const errors = { 400: ErrorSchema, 404: ErrorSchema };

export async function billingRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const forCaller = <V extends Parameters<typeof withInvoiceActions>[0]>(req: FastifyRequest, view: V) =>
    withInvoiceActions(view, actionViewer(deps, clientAuthOf(req)));

  // Action bodies are optional: an empty POST counts as `{}`.
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });

  r.get(
    '/billing/invoices',
    {
      config: read,
      schema: {
        tags,
        summary: 'List invoices',
        description: 'Newest first; drafts are never listed.',
        querystring: ListInvoicesQuery,
        response: { 200: InvoiceListSchema },
      },
    },
    async (req) => {
      const list = await listClientInvoices(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), {
        status: req.query.status,
        from: req.query.from,
        to: req.query.to,
      });
      return { ...list, invoices: list.invoices.map((i) => forCaller(req, i)) };
    },
  );

  r.get(
    '/billing/invoices/:invoice_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get an invoice',
        description: 'A draft is 404 like an unknown invoice.',
        params: InvoiceIdParams,
        response: { 200: InvoiceSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(req, await getClientInvoice(deps, clientAuthOf(req).clientId, req.params.invoice_id)),
  );

  r.get(
    '/billing/invoices/:invoice_id/pdf',
    {
      config: read,
      schema: {
        tags,
        summary: 'Download the invoice PDF',
        description: 'The PDF rendered once at finalization (`application/pdf`), checked against its sha256.',
        params: InvoiceIdParams,
        response: { 200: PdfSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendPdf(reply, await downloadInvoicePdf(deps, clientAuthOf(req).clientId, req.params.invoice_id)),
  );

  r.get(
    '/billing/usage',
    {
      config: read,
      schema: {
        tags,
        summary: 'Usage of the current month so far',
        description:
          'An estimate from the price list: the billable records of the current UTC month × the unit prices ' +
          '(400 when the client has no price list).',
        response: { 200: UsageSchema, 400: ErrorSchema },
      },
    },
    async (req) => getUsage(deps, clientAuthOf(req).clientId),
  );

  r.get(
    '/billing/details',
    {
      config: read,
      schema: {
        tags,
        summary: 'Billing details',
        description: 'Until set, the registration name and email (updated_at null).',
        response: { 200: BillingDetailsSchema },
      },
    },
    async (req) => getBillingDetails(deps, clientAuthOf(req).clientId),
  );

  r.put(
    '/billing/details',
    {
      config: { permission: 'billing.write' },
      schema: {
        tags,
        summary: 'Replace the billing details',
        description: 'Copied onto each invoice at finalization; invoices already issued keep theirs.',
        body: BillingDetailsBody,
        response: { 200: BillingDetailsSchema },
      },
    },
    async (req) => putBillingDetails(deps, clientAuthOf(req).clientId, req.body),
  );

  r.post(
    '/sandbox/billing/invoices',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'A finalized sample invoice for the caller',
        description: 'Sandbox deployments only (404 in production). The PDF carries a SANDBOX watermark.',
        body: SampleInvoiceBody,
        response: { 201: InvoiceSchema, ...errors },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(forCaller(req, await createSampleInvoice(deps, clientAuthOf(req).clientId, req.body))),
  );

  r.post(
    '/sandbox/billing/invoices/:invoice_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Simulate payment or the due date passing',
        description:
          'Sandbox only. `pay` completes the invoice payment link at the sandbox bank (the production path), or marks ' +
          'the invoice paid when it has none; `overdue` moves an open invoice to overdue now. A move the status does ' +
          'not allow: the real action\u2019s 400.',
        params: InvoiceIdParams,
        body: SimulateInvoiceBody,
        response: { 200: InvoiceSchema, ...errors },
      },
    },
    async (req) =>
      forCaller(
        req,
        await simulateInvoice(deps, clientAuthOf(req).clientId, req.params.invoice_id, req.body.action),
      ),
  );

  // ---- staff admin ----

  r.put(
    '/admin/clients/:client_id/billing-prices',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: "Replace a client's price list",
        description:
          'Unit prices as decimal strings (at most 6 decimals); amounts round half-up to 2 per line.',
        params: ClientIdParams,
        body: PriceListBody,
        response: { 200: PriceListSchema, 404: ErrorSchema },
      },
    },
    async (req) => putPriceList(deps, req.params.client_id, req.body),
  );

  r.get(
    '/admin/clients/:client_id/billing-prices',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: "A client's price list",
        params: ClientIdParams,
        response: { 200: PriceListSchema, 404: ErrorSchema },
      },
    },
    async (req) => getPriceList(deps, req.params.client_id),
  );

  r.get(
    '/admin/billing/invoices',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'List invoices of every client (drafts included)',
        querystring: AdminListInvoicesQuery,
        response: { 200: AdminInvoiceListSchema },
      },
    },
    async (req) => listAdminInvoices(deps, toPageParams(req.query, 20), req.query),
  );

  r.post(
    '/admin/billing/invoices',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Create a draft invoice',
        description:
          'From `lines`, or `from_usage: true` (the billable records of the period × the client\u2019s price list; ' +
          '400 without one). Drafts are invisible to the client and send no event.',
        body: CreateInvoiceBody,
        response: { 201: AdminInvoiceSchema, ...errors },
      },
    },
    async (req, reply) => reply.code(201).send(await createDraftInvoice(deps, req.body)),
  );

  r.get(
    '/admin/billing/invoices/:invoice_id',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Get an invoice',
        params: InvoiceIdParams,
        response: { 200: AdminInvoiceSchema, 404: ErrorSchema },
      },
    },
    async (req) => getAdminInvoice(deps, req.params.invoice_id),
  );

  r.patch(
    '/admin/billing/invoices/:invoice_id',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Edit a draft',
        description: '`lines` replaces every line. Drafts only (400 otherwise).',
        params: InvoiceIdParams,
        body: PatchInvoiceBody,
        response: { 200: AdminInvoiceSchema, ...errors },
      },
    },
    async (req) => patchDraftInvoice(deps, req.params.invoice_id, req.body),
  );

  r.delete(
    '/admin/billing/invoices/:invoice_id',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Delete a draft',
        params: InvoiceIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors },
      },
    },
    async (req, reply) => {
      await deleteDraftInvoice(deps, req.params.invoice_id);
      return reply.code(204).send(null);
    },
  );

  const actions = [
    [
      'finalize',
      'Finalize a draft',
      'draft -> open: the next gapless number, the PDF (rendered once), the email to billing_email and, when the ' +
        'platform collects online, the payment link.',
      (id: string) => finalizeInvoice(deps, id),
    ],
    [
      'mark-uncollectible',
      'Mark uncollectible',
      'open or overdue -> uncollectible.',
      (id: string) => markInvoiceUncollectible(deps, id),
    ],
  ] as const;
  for (const [action, summary, description, run] of actions) {
    r.post(
      `/admin/billing/invoices/:invoice_id/${action}`,
      {
        config: { ...staff, bodyless: true },
        schema: {
          tags: adminTags,
          summary,
          description,
          params: InvoiceIdParams,
          response: { 200: AdminInvoiceSchema, ...errors },
        },
      },
      async (req) => run(req.params.invoice_id),
    );
  }

  r.post(
    '/admin/billing/invoices/:invoice_id/mark-paid',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Mark paid',
        description:
          'open, overdue or uncollectible -> paid (e.g. a bank transfer arrived); an open payment link is canceled.',
        params: InvoiceIdParams,
        body: MarkPaidBody,
        response: { 200: AdminInvoiceSchema, ...errors },
      },
    },
    async (req) => markInvoicePaid(deps, req.params.invoice_id, req.body),
  );

  r.post(
    '/admin/billing/invoices/:invoice_id/void',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Void',
        description:
          'open, overdue or uncollectible -> void; the PDF keeps its number. Reissue makes a corrected draft.',
        params: InvoiceIdParams,
        body: VoidBody,
        response: { 200: AdminInvoiceSchema, ...errors },
      },
    },
    async (req) => voidInvoice(deps, req.params.invoice_id, req.body.reason),
  );

  r.post(
    '/admin/billing/invoices/:invoice_id/reissue',
    {
      config: { ...staff, bodyless: true },
      schema: {
        tags: adminTags,
        summary: 'Reissue a void invoice',
        description: 'A new draft with the same client, period, terms and lines, and `replaces_invoice_id`.',
        params: InvoiceIdParams,
        response: { 201: AdminInvoiceSchema, ...errors },
      },
    },
    async (req, reply) => reply.code(201).send(await reissueInvoice(deps, req.params.invoice_id)),
  );
}
