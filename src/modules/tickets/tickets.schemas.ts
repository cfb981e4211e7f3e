/** Request and response schemas of the support-ticket routes (client and staff). */
import { Type } from 'typebox';
import { fileResponse } from '../../shared/download';
import { pageEnvelope, pageQuerySchema, searchQuerySchema } from '../../shared/pagination';
import { TicketActionsSchema } from './tickets.actions';
import { TICKET_STATUSES } from './tickets.machine';
import { ATTACHMENT_MEDIA_TYPES } from './tickets-attachments.service';

export const TICKET_CATEGORIES = [
  'payments',
  'verification',
  'opcos',
  'contracts',
  'compliance',
  'billing',
  'technical',
  'other',
] as const;
export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TicketCategory = (typeof TICKET_CATEGORIES)[number];
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

const uuid = Type.String({ format: 'uuid' });
const dateTime = Type.String({ format: 'date-time' });
const nullableDateTime = Type.Union([dateTime, Type.Null()]);

export { ErrorSchema } from '../../shared/error-schema';

const Status = Type.Enum(TICKET_STATUSES, {
  description:
    'open, awaiting_client, resolved, closed (see the status table in the [tickets guide](/docs/guides/tickets))',
});
const Category = Type.Enum(TICKET_CATEGORIES);
const Priority = Type.Enum(TICKET_PRIORITIES);

const Reference = Type.Object(
  {
    type: Type.String({
      pattern: '^[a-z][a-z0-9_]{0,49}$',
      description: 'What is referenced, e.g. transaction, invoice, contract_request',
    }),
    id: Type.String({ minLength: 1, maxLength: 100 }),
  },
  { additionalProperties: false },
);

const CcEmails = Type.Array(Type.String({ format: 'email', maxLength: 254 }), {
  maxItems: 5,
  description: 'Up to 5 addresses that also receive the staff replies by email',
});

export const AttachmentInputSchema = Type.Object(
  {
    file_name: Type.String({ minLength: 1, maxLength: 255 }),
    content_base64: Type.String({
      minLength: 1,
      description:
        'The file, base64-encoded; at most SVC_TICKET_MAX_ATTACHMENT_BYTES decoded. Typed by its bytes: pdf, png, ' +
        'jpeg by magic number; txt, csv, json, log by being UTF-8 text without NUL. The extension must agree.',
    }),
  },
  { additionalProperties: false },
);
const Attachments = Type.Array(AttachmentInputSchema, { maxItems: 5 });

const Body = Type.String({ minLength: 1, maxLength: 10000 });

export const CreateTicketBody = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 200 }),
    body: Body,
    category: Category,
    priority: Type.Optional(Type.Enum(TICKET_PRIORITIES, { default: 'normal' })),
    references: Type.Optional(Type.Array(Reference, { maxItems: 10 })),
    cc_emails: Type.Optional(CcEmails),
    attachments: Type.Optional(Attachments),
    follow_up_of: Type.Optional(
      Type.String({ format: 'uuid', description: 'A closed ticket of yours this one follows up' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTicketInput = Type.Static<typeof CreateTicketBody>;

export const PatchTicketBody = Type.Object(
  { priority: Type.Optional(Priority), cc_emails: Type.Optional(CcEmails) },
  { additionalProperties: false, minProperties: 1 },
);

export const CreateMessageBody = Type.Object(
  { body: Body, attachments: Type.Optional(Attachments) },
  { additionalProperties: false },
);

export const SimulateTicketBody = Type.Object(
  {
    action: Type.Enum(['agent_reply', 'resolve'] as const, {
      description:
        '`agent_reply`: a public reply from the support agent (open -> awaiting_client); `resolve`: a resolving ' +
        'reply (-> resolved)',
    }),
    body: Type.Optional(
      Type.String({ minLength: 1, maxLength: 10000, description: 'Default: a sample text' }),
    ),
  },
  { additionalProperties: false },
);
export type SimulateTicketInput = Type.Static<typeof SimulateTicketBody>;

export const SatisfactionBody = Type.Object(
  {
    rating: Type.Enum(['good', 'bad'] as const),
    comment: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const TicketIdParams = Type.Object({ ticket_id: uuid });
export const AttachmentParams = Type.Object({ ticket_id: uuid, attachment_id: uuid });

export const ListTicketsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Status),
  category: Type.Optional(Category),
  priority: Type.Optional(Priority),
  q: Type.Optional(searchQuerySchema('subject, number (#123) and message text')),
});

export const ListMessagesQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  order: Type.Enum(['asc', 'desc'] as const, { default: 'asc', description: 'By created_at' }),
});

const AttachmentSchema = Type.Object({
  attachment_id: uuid,
  file_name: Type.String(),
  content_type: Type.String(),
  size: Type.Integer(),
});

const ticketFields = {
  ticket_id: uuid,
  number: Type.Integer({ description: "The client's own sequence" }),
  number_display: Type.String({ description: 'The number as shown: #123' }),
  subject: Type.String(),
  category: Category,
  priority: Priority,
  status: Status,
  references: Type.Array(Reference),
  cc_emails: Type.Array(Type.String()),
  created_by: Type.Object({
    actor_type: Type.Enum(['client_user', 'client_api'] as const),
    account_id: Type.Union([uuid, Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
  }),
  follow_up_of: Type.Union([uuid, Type.Null()]),
  message_count: Type.Integer({ description: 'Public messages (internal notes are not counted)' }),
  last_message_at: nullableDateTime,
  last_message_by: Type.Union([Type.Enum(['client', 'staff'] as const), Type.Null()]),
  satisfaction: Type.Union([
    Type.Object({
      rating: Type.Enum(['good', 'bad'] as const),
      comment: Type.Union([Type.String(), Type.Null()]),
      rated_at: dateTime,
    }),
    Type.Null(),
  ]),
  created_at: dateTime,
  updated_at: dateTime,
  resolved_at: nullableDateTime,
  closed_at: nullableDateTime,
};

export const TicketSchema = Type.Object({ ...ticketFields, allowed_actions: TicketActionsSchema });

export const MessageSchema = Type.Object({
  message_id: uuid,
  ticket_id: uuid,
  author_type: Type.Enum(['client', 'staff'] as const),
  author: Type.Object({
    account_id: Type.Union([uuid, Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
  }),
  body: Type.String(),
  attachments: Type.Array(AttachmentSchema),
  created_at: dateTime,
});

export const TicketListSchema = pageEnvelope('tickets', TicketSchema);
export const MessageListSchema = pageEnvelope('messages', MessageSchema);
export const FileSchema = fileResponse(
  'The attachment, of the type its bytes showed',
  ATTACHMENT_MEDIA_TYPES,
);

// ---- staff admin ----

export const AdminTicketSchema = Type.Object({
  ...ticketFields,
  client_id: uuid,
  environment: Type.Enum(['sandbox', 'production'] as const, {
    description: 'The deployment the ticket was opened on',
  }),
  assignee_staff_id: Type.Union([uuid, Type.Null()]),
});

const EmailDeliverySchema = Type.Object({
  recipient: Type.String(),
  state: Type.Enum(['pending', 'sent', 'failed'] as const),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  sent_at: nullableDateTime,
});

export const AdminMessageSchema = Type.Object({
  ...MessageSchema.properties,
  internal: Type.Boolean({ description: 'A staff-only note: never shown on client routes' }),
  author: Type.Object({
    account_id: Type.Union([uuid, Type.Null()]),
    staff_id: Type.Union([uuid, Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
  }),
  emails: Type.Array(EmailDeliverySchema, {
    description: 'Staff public replies: the email to the creator and each CC, and how it went',
  }),
});

export const AdminTicketDetailSchema = Type.Object({
  ...AdminTicketSchema.properties,
  messages: Type.Array(AdminMessageSchema, {
    description: 'Every message, internal notes included, oldest first',
  }),
});

export const AdminTicketListSchema = pageEnvelope('tickets', AdminTicketSchema);

export const AdminListTicketsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  client_id: Type.Optional(uuid),
  status: Type.Optional(Status),
  priority: Type.Optional(Priority),
  assignee_staff_id: Type.Optional(uuid),
  q: Type.Optional(searchQuerySchema('subject, number (#123) and message text, internal notes included')),
});

export const AdminMessageBody = Type.Object(
  {
    body: Body,
    attachments: Type.Optional(Attachments),
    internal: Type.Boolean({ default: false, description: 'A staff-only note' }),
    status: Type.Optional(
      Type.Enum(['awaiting_client', 'open', 'resolved'] as const, {
        description:
          'Public replies only: the status after the reply (default awaiting_client; a reply on a resolved ticket ' +
          'keeps it resolved when omitted)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AdminPatchTicketBody = Type.Object(
  {
    status: Type.Optional(Status),
    priority: Type.Optional(Priority),
    category: Type.Optional(Category),
    assignee_staff_id: Type.Optional(Type.Union([uuid, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
