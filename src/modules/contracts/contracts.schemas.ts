/** Request and response schemas of the contract routes (they feed OpenAPI). */
import { Type } from 'typebox';
import { fileResponse, MEDIA } from '../../shared/download';
import {
  dateRangeQuerySchema,
  pageEnvelope,
  pageQuerySchema,
  searchQuerySchema,
} from '../../shared/pagination';
import { withoutDefaults } from '../../shared/partial-update';
import { PARTICIPANT_STATUSES } from './participants/participants.machine';
import { RequestActionsSchema } from './requests/requests.actions';
import { REQUEST_STATUSES } from './requests/requests.machine';

const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const N = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Email = Type.String({ format: 'email', maxLength: 254 });

export { ErrorSchema } from '../../shared/error-schema';

const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), {
  maxProperties: 20,
  description: 'At most 20 keys, string values of at most 500 characters',
});

export const FIELD_TYPES = [
  'signature',
  'initials',
  'name',
  'email',
  'date_signed',
  'text',
  'checkbox',
] as const;
const Fraction = Type.Number({ minimum: 0, maximum: 1, description: 'Fraction of the page (0-1)' });

export const RoleSchema = Type.Object(
  {
    role: Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }),
    kind: Type.Enum(['signer', 'approver', 'viewer'] as const),
    signing_order: Type.Integer({ minimum: 1, maximum: 10, default: 1 }),
  },
  { additionalProperties: false },
);
export const FieldSchema = Type.Object(
  {
    field_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    role: Type.String({ minLength: 1, maxLength: 40 }),
    type: Type.Enum(FIELD_TYPES),
    page: Type.Integer({ minimum: 1, maximum: 10000 }),
    x: Fraction,
    y: Fraction,
    width: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    height: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    required: Type.Boolean({ default: true }),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    value_key: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}$' })),
  },
  { additionalProperties: false },
);
const Roles = Type.Array(RoleSchema, { minItems: 1, maxItems: 10 });
const Fields = Type.Array(FieldSchema, { maxItems: 200 });
export const DocumentInput = Type.Object(
  {
    file_name: Type.String({ minLength: 1, maxLength: 255 }),
    content_base64: Type.String({
      minLength: 1,
      description:
        'The PDF, base64; checked by its %PDF- magic bytes, at most SVC_CONTRACT_MAX_DOCUMENT_BYTES',
    }),
  },
  { additionalProperties: false },
);

export const CreateTemplateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    document: DocumentInput,
    roles: Roles,
    fields: Fields,
  },
  { additionalProperties: false },
);
export type CreateTemplateInput = Type.Static<typeof CreateTemplateBody>;
/** No defaults in a partial update: the service fills a new role's or field's (signing_order 1, required). */
export const PatchTemplateBody = withoutDefaults(
  Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      description: Type.Optional(Type.String({ maxLength: 1000 })),
      document: Type.Optional(DocumentInput),
      roles: Type.Optional(Roles),
      fields: Type.Optional(Fields),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);
export type PatchTemplateInput = Type.Static<typeof PatchTemplateBody>;

export const TemplateSchema = Type.Object({
  template_id: Uuid(),
  name: Type.String(),
  description: N(Type.String()),
  document: Type.Object({
    file_name: Type.String(),
    content_type: Type.String(),
    size: Type.Integer(),
    sha256: Type.String(),
    page_count: Type.Integer(),
  }),
  roles: Type.Array(RoleSchema),
  fields: Type.Array(Type.Object({}, { additionalProperties: true })),
  version: Type.Integer(),
  is_ad_hoc: Type.Boolean(),
  archived_at: N(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
});
export const TemplateListSchema = pageEnvelope('templates', TemplateSchema);
export const TemplateParams = Type.Object({ template_id: Uuid() });
export const ListTemplatesQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  q: Type.Optional(searchQuerySchema('name and description')),
  updated_from: Type.Optional(
    Type.String({ format: 'date-time', description: 'updated_at >= updated_from' }),
  ),
  include_ad_hoc: Type.Boolean({ default: false }),
  include_archived: Type.Boolean({ default: false }),
});

const CcSchema = Type.Object(
  {
    email: Email,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    when: Type.Enum(['on_send', 'on_completion'] as const, { default: 'on_completion' }),
  },
  { additionalProperties: false },
);
export const CcList = Type.Array(CcSchema, { maxItems: 10 });

export const ParticipantInput = Type.Object(
  {
    role: Type.String({ minLength: 1, maxLength: 40 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Email,
    user_id: Type.Optional(Uuid()),
    business_customer_id: Type.Optional(Uuid()),
    signing_order: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    auth: Type.Enum(['none', 'email_otp'] as const, { default: 'none' }),
  },
  { additionalProperties: false },
);
export const PaymentInput = Type.Object(
  {
    amount: Type.Optional(Type.String({ maxLength: 32 })),
    currency: Type.Optional(Type.String({ maxLength: 3 })),
    project_id: Type.Optional(Uuid()),
    user_id: Type.Optional(Uuid()),
    business_customer_id: Type.Optional(Uuid()),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    expires_in_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 30 * 86400 })),
  },
  { additionalProperties: false },
);
export const SendBody = Type.Object(
  {
    template_id: Type.Optional(Uuid()),
    flow_id: Type.Optional(Uuid()),
    document: Type.Optional(
      Type.Object(
        {
          file_name: DocumentInput.properties.file_name,
          content_base64: DocumentInput.properties.content_base64,
          roles: Roles,
          fields: Fields,
        },
        { additionalProperties: false },
      ),
    ),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    message: Type.Optional(Type.String({ maxLength: 2000 })),
    participants: Type.Array(ParticipantInput, { minItems: 1, maxItems: 10 }),
    cc_recipients: Type.Optional(CcList),
    field_values: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1000 }), { maxProperties: 200 }),
    ),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
    reminder_interval_days: Type.Optional(N(Type.Integer({ minimum: 1, maximum: 30 }))),
    delivery: Type.Optional(Type.Enum(['email', 'none'] as const)),
    redirect_url: Type.Optional(Type.String({ maxLength: 2000 })),
    payment: Type.Optional(PaymentInput),
    external_reference: Type.Optional(Type.String({ maxLength: 100 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type SendInput = Type.Static<typeof SendBody>;
export const IdemHeaders = Type.Object({
  'x-idempotency-key': Type.Optional(
    Type.String({ maxLength: 255, description: 'Optional; replays the original answer' }),
  ),
});

const ParticipantSchema = Type.Object({
  participant_id: Uuid(),
  role: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  email: Type.String(),
  user_id: N(Uuid()),
  business_customer_id: N(Uuid()),
  signing_order: Type.Integer(),
  auth: Type.String(),
  status: Type.Enum(PARTICIPANT_STATUSES),
  signing_url: N(Type.String()),
  viewed_at: N(DateTime),
  completed_at: N(DateTime),
  declined_at: N(DateTime),
  decline_reason: N(Type.String()),
});
export const RequestSchema = Type.Object({
  contract_request_id: Uuid(),
  title: Type.String(),
  status: Type.Enum(REQUEST_STATUSES),
  status_reason: N(Type.String()),
  flow_id: N(Uuid()),
  template_ids: Type.Array(Uuid()),
  template_versions: Type.Array(Type.Integer()),
  external_reference: N(Type.String()),
  delivery: Type.String(),
  expires_at: DateTime,
  reminder_interval_days: N(Type.Integer()),
  next_reminder_at: N(DateTime),
  certificate_sha256: N(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  created_at: DateTime,
  sent_at: N(DateTime),
  completed_at: N(DateTime),
  declined_at: N(DateTime),
  voided_at: N(DateTime),
  void_reason: N(Type.String()),
  participants: Type.Array(ParticipantSchema),
  cc_recipients: Type.Array(
    Type.Object({ email: Type.String(), name: N(Type.String()), when: Type.String(), sent_at: N(DateTime) }),
  ),
  payment: N(
    Type.Object({
      amount: Type.String(),
      currency: Type.String(),
      project_id: Uuid(),
      user_id: N(Uuid()),
      business_customer_id: N(Uuid()),
      transaction_id: N(Uuid()),
      checkout_url: N(Type.String()),
      error: N(Type.String()),
    }),
  ),
  documents: Type.Array(
    Type.Object({
      document_id: Uuid(),
      file_name: Type.String(),
      kind: Type.Enum(['original', 'signed'] as const),
      sha256: Type.String(),
      size: Type.Integer(),
    }),
  ),
  allowed_actions: RequestActionsSchema,
});
export const RequestListSchema = pageEnvelope('contract_requests', RequestSchema);
export const RequestParams = Type.Object({ contract_request_id: Uuid() });
export const DocumentParams = Type.Object({ contract_request_id: Uuid(), document_id: Uuid() });
export const ParticipantParams = Type.Object({ contract_request_id: Uuid(), participant_id: Uuid() });
export const ListRequestsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  ...dateRangeQuerySchema,
  status: Type.Optional(Type.Enum(REQUEST_STATUSES)),
  flow_id: Type.Optional(Uuid()),
  template_id: Type.Optional(Uuid()),
  user_id: Type.Optional(Uuid()),
  business_customer_id: Type.Optional(Uuid()),
  q: Type.Optional(searchQuerySchema('title, external_reference and participant email')),
});
export const VoidBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false },
);
export const RemindBody = Type.Object(
  { participant_ids: Type.Optional(Type.Array(Uuid(), { minItems: 1, maxItems: 10 })) },
  { additionalProperties: false },
);
export const CorrectBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), email: Type.Optional(Email) },
  { additionalProperties: false, minProperties: 1 },
);
export const AuditTrailSchema = Type.Object({
  events: Type.Array(
    Type.Object({
      type: Type.String(),
      participant_id: N(Uuid()),
      occurred_at: DateTime,
      ip: N(Type.String()),
      user_agent: N(Type.String()),
    }),
  ),
});
export const SimulateBody = Type.Object(
  {
    action: Type.Enum(['view', 'sign', 'decline', 'bounce', 'expire', 'fail'] as const),
    participant_id: Type.Optional(Uuid()),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const PdfSchema = fileResponse('The PDF', MEDIA.pdf);
