/** Schemas of /contracts/workflows (contract flows). */
import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema, searchQuerySchema } from '../../../shared/pagination';
import { withoutDefaults } from '../../../shared/partial-update';
import { CcList } from '../contracts.schemas';
import { FlowActionsSchema } from './flows.actions';

const Uuid = () => Type.String({ format: 'uuid' });
const N = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const FlowPayment = Type.Object(
  {
    amount: Type.Optional(Type.String({ maxLength: 32 })),
    currency: Type.String({ maxLength: 3 }),
    project_id: Uuid(),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    payer_role: Type.String({ minLength: 1, maxLength: 40 }),
  },
  { additionalProperties: false },
);
const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  template_ids: Type.Array(Uuid(), { minItems: 1, maxItems: 5 }),
  expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
  reminder_interval_days: Type.Optional(N(Type.Integer({ minimum: 1, maximum: 30 }))),
  delivery: Type.Optional(Type.Enum(['email', 'none'] as const, { default: 'email' })),
  cc_recipients: Type.Optional(CcList),
  payment: Type.Optional(FlowPayment),
};
export const FlowBody = Type.Object(fields, { additionalProperties: false });
export type FlowInput = Type.Static<typeof FlowBody>;
/** Only what the caller sends changes: no defaults here (the service applies create's). */
export const PatchFlowBody = withoutDefaults(
  Type.Object(
    {
      name: Type.Optional(fields.name),
      description: fields.description,
      template_ids: Type.Optional(fields.template_ids),
      expires_in_days: fields.expires_in_days,
      reminder_interval_days: fields.reminder_interval_days,
      delivery: fields.delivery,
      cc_recipients: fields.cc_recipients,
      payment: Type.Optional(N(FlowPayment)),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);
export const FlowSchema = Type.Object({
  flow_id: Uuid(),
  name: Type.String(),
  description: N(Type.String()),
  status: Type.Enum(['draft', 'active'] as const),
  template_ids: Type.Array(Uuid()),
  expires_in_days: Type.Integer(),
  reminder_interval_days: N(Type.Integer()),
  delivery: Type.String(),
  cc_recipients: Type.Array(
    Type.Object({ email: Type.String(), name: N(Type.String()), when: Type.String() }),
  ),
  payment: N(
    Type.Object({
      amount: N(Type.String()),
      currency: Type.String(),
      project_id: Uuid(),
      description: N(Type.String()),
      payer_role: Type.String(),
    }),
  ),
  activated_at: N(Type.String({ format: 'date-time' })),
  archived_at: N(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  allowed_actions: FlowActionsSchema,
});
export const FlowListSchema = pageEnvelope('flows', FlowSchema);
export const FlowParams = Type.Object({ flow_id: Uuid() });
export const ListFlowsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(['draft', 'active'] as const)),
  q: Type.Optional(searchQuerySchema('name')),
  include_archived: Type.Boolean({ default: false }),
});
