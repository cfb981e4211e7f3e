/** Support tickets: the client API (tickets.read / tickets.write) and the staff admin API. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf, staffAuthOf } from '../../plugins/auth';
import { sendDownload } from '../../shared/download';
import { toPageParams } from '../../shared/pagination';
import { withTicketActions } from './tickets.actions';
import {
  AdminListTicketsQuery,
  AdminMessageBody,
  AdminMessageSchema,
  AdminPatchTicketBody,
  AdminTicketDetailSchema,
  AdminTicketListSchema,
  AdminTicketSchema,
  AttachmentParams,
  CreateMessageBody,
  CreateTicketBody,
  ErrorSchema,
  FileSchema,
  ListMessagesQuery,
  ListTicketsQuery,
  MessageListSchema,
  MessageSchema,
  PatchTicketBody,
  SatisfactionBody,
  SimulateTicketBody,
  TicketIdParams,
  TicketListSchema,
  TicketSchema,
} from './tickets.schemas';
import {
  closeClientTicket,
  createTicket,
  downloadClientAttachment,
  getClientTicket,
  listClientMessages,
  listClientTickets,
  patchClientTicket,
  postClientMessage,
  rateClientTicket,
  reopenClientTicket,
} from './tickets.service';
import {
  downloadAdminAttachment,
  getAdminTicket,
  listAdminTickets,
  patchAdminTicket,
  postStaffMessage,
} from './tickets-admin.service';
import { attachmentBodyLimit } from './tickets-attachments.service';
import { simulateTicket } from './tickets-sandbox.service';

const tags = ['Support tickets'];
const adminTags = ['Admin (staff)'];
const read = { permission: 'tickets.read' as const };
const write = { permission: 'tickets.write' as const };
const staff = { auth: 'staff' as const };

export async function ticketsRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const bodyLimit = attachmentBodyLimit(deps.config.ticketMaxAttachmentBytes);
  const forCaller = <V extends Parameters<typeof withTicketActions>[0]>(req: FastifyRequest, view: V) =>
    withTicketActions(view, actionViewer(deps, clientAuthOf(req)), {
      now: deps.clock.now(),
      days: deps.config.ticketReopenWindowDays,
    });

  // Action bodies are optional: an empty POST counts as `{}`.
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });

  r.post(
    '/tickets',
    {
      bodyLimit,
      config: write,
      schema: {
        tags,
        summary: 'Open a ticket',
        description:
          'The body is the first message. `number` is the next of your own sequence (#1, #2, …). `follow_up_of` names ' +
          'a closed ticket of yours (another status: 400). Sends ticket.status_changed (previous_status null) and ' +
          'ticket.message.created.',
        body: CreateTicketBody,
        response: { 201: TicketSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      reply.code(201).send(forCaller(req, await createTicket(deps, clientAuthOf(req), req.body))),
  );

  r.get(
    '/tickets',
    {
      config: read,
      schema: {
        tags,
        summary: 'List tickets',
        description: 'Newest first. `q` searches the subject, the number (#123) and the message text.',
        querystring: ListTicketsQuery,
        response: { 200: TicketListSchema },
      },
    },
    async (req) => {
      const list = await listClientTickets(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), {
        status: req.query.status,
        category: req.query.category,
        priority: req.query.priority,
        q: req.query.q,
      });
      return { ...list, tickets: list.tickets.map((t) => forCaller(req, t)) };
    },
  );

  r.get(
    '/tickets/:ticket_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a ticket',
        params: TicketIdParams,
        response: { 200: TicketSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(req, await getClientTicket(deps, clientAuthOf(req).clientId, req.params.ticket_id)),
  );

  r.patch(
    '/tickets/:ticket_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change priority or CCs',
        description: 'Not when closed (400).',
        params: TicketIdParams,
        body: PatchTicketBody,
        response: { 200: TicketSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(
        req,
        await patchClientTicket(deps, clientAuthOf(req).clientId, req.params.ticket_id, req.body),
      ),
  );

  r.get(
    '/tickets/:ticket_id/messages',
    {
      config: read,
      schema: {
        tags,
        summary: 'List the messages of a ticket',
        description:
          'Public messages only (staff internal notes never appear here). Oldest first by default.',
        params: TicketIdParams,
        querystring: ListMessagesQuery,
        response: { 200: MessageListSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      listClientMessages(
        deps,
        clientAuthOf(req).clientId,
        req.params.ticket_id,
        toPageParams(req.query, 20),
        req.query.order,
      ),
  );

  r.post(
    '/tickets/:ticket_id/messages',
    {
      bodyLimit,
      config: write,
      schema: {
        tags,
        summary: 'Reply to a ticket',
        description:
          'Moves an awaiting_client or resolved ticket back to open. A closed ticket refuses replies: within ' +
          'SVC_TICKET_REOPEN_WINDOW_DAYS reopen it first; after that open a follow-up ticket (`follow_up_of`).',
        params: TicketIdParams,
        body: CreateMessageBody,
        response: { 201: MessageSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await postClientMessage(deps, clientAuthOf(req), req.params.ticket_id, req.body)),
  );

  r.get(
    '/tickets/:ticket_id/attachments/:attachment_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Download an attachment',
        description:
          'The file with its content type (decided from its bytes) as `Content-Disposition: attachment`.',
        params: AttachmentParams,
        response: { 200: FileSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendDownload(
        reply,
        await downloadClientAttachment(
          deps,
          clientAuthOf(req).clientId,
          req.params.ticket_id,
          req.params.attachment_id,
        ),
      ),
  );

  for (const [action, run, summary, description] of [
    [
      'close',
      closeClientTicket,
      'Close a resolved ticket',
      'Only a resolved ticket (otherwise 400 `Only resolved tickets can be closed by the client`).',
    ],
    [
      'reopen',
      reopenClientTicket,
      'Reopen a closed ticket',
      'Within SVC_TICKET_REOPEN_WINDOW_DAYS of closed_at; afterwards 400: open a follow-up ticket instead.',
    ],
  ] as const) {
    r.post(
      `/tickets/:ticket_id/${action}`,
      {
        config: { ...write, bodyless: true },
        schema: {
          tags,
          summary,
          description,
          params: TicketIdParams,
          response: { 200: TicketSchema, 400: ErrorSchema, 404: ErrorSchema },
        },
      },
      async (req) => forCaller(req, await run(deps, clientAuthOf(req), req.params.ticket_id)),
    );
  }

  r.post(
    '/tickets/:ticket_id/satisfaction',
    {
      config: write,
      schema: {
        tags,
        summary: 'Rate the support of a ticket',
        description: 'Resolved or closed tickets only; a new rating replaces the previous one.',
        params: TicketIdParams,
        body: SatisfactionBody,
        response: { 200: TicketSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(
        req,
        await rateClientTicket(deps, clientAuthOf(req).clientId, req.params.ticket_id, req.body),
      ),
  );

  // ---- staff admin ----

  r.post(
    '/sandbox/tickets/:ticket_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Simulate the support agent: a reply or a resolution',
        description:
          'Sandbox deployments only (404 in production). Runs the staff reply itself, so the ticket moves as for a ' +
          'real agent (`agent_reply`: open -> awaiting_client; `resolve`: -> resolved), with ticket.status_changed ' +
          'and ticket.message.created, the emails to the creator and the CCs, the notifications and the activity ' +
          'entry (metadata `simulated: true`). A closed ticket: the staff reply\u2019s 400.',
        params: TicketIdParams,
        body: SimulateTicketBody,
        response: { 200: TicketSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(req, await simulateTicket(deps, clientAuthOf(req).clientId, req.params.ticket_id, req.body)),
  );

  r.get(
    '/admin/tickets',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'The ticket queue of every client',
        description: 'Newest first; `environment` marks sandbox tickets. `q` also searches internal notes.',
        querystring: AdminListTicketsQuery,
        response: { 200: AdminTicketListSchema },
      },
    },
    async (req) => listAdminTickets(deps, toPageParams(req.query, 20), req.query),
  );

  r.get(
    '/admin/tickets/:ticket_id',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'A ticket with every message, internal notes included',
        params: TicketIdParams,
        response: { 200: AdminTicketDetailSchema, 404: ErrorSchema },
      },
    },
    async (req) => getAdminTicket(deps, req.params.ticket_id),
  );

  r.post(
    '/admin/tickets/:ticket_id/messages',
    {
      bodyLimit,
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Reply (public) or add an internal note',
        description:
          'A public reply sets `status` (default awaiting_client), emails the creator and the CCs, notifies the ' +
          'creator and the owners, and sends ticket.message.created. An internal note does none of that and is never ' +
          'shown to the client.',
        params: TicketIdParams,
        body: AdminMessageBody,
        response: { 201: AdminMessageSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await postStaffMessage(deps, { staffId: staffAuthOf(req).staffId }, req.params.ticket_id, req.body),
        ),
  );

  r.patch(
    '/admin/tickets/:ticket_id',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Change status, priority, category or assignee',
        description: 'Status moves follow the staff rows of the ticket status table (400 otherwise).',
        params: TicketIdParams,
        body: AdminPatchTicketBody,
        response: { 200: AdminTicketSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) => patchAdminTicket(deps, req.params.ticket_id, req.body),
  );

  r.get(
    '/admin/tickets/:ticket_id/attachments/:attachment_id',
    {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Download an attachment (internal notes included)',
        params: AttachmentParams,
        response: { 200: FileSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendDownload(
        reply,
        await downloadAdminAttachment(deps, req.params.ticket_id, req.params.attachment_id),
      ),
  );
}
