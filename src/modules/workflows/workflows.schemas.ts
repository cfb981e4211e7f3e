import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema } from '../../shared/pagination';
import { DEFINITION_STATUSES, RUN_STATUSES, STEP_STATUSES } from './workflows.machine';
import { GraphSchema, NODE_TYPES } from './workflows-graph.policy';

const uuid = Type.String({ format: 'uuid' });
const dateTime = Type.String({ format: 'date-time' });
const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const WorkflowSchema = Type.Object({
  definition_id: uuid,
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  status: Type.Enum(DEFINITION_STATUSES, {
    description: 'DRAFT (editable) or PUBLISHED (immutable, runnable)',
  }),
  is_template: Type.Boolean({ description: 'A read-only system template: fork it to use it' }),
  trigger_type: Type.Enum(['manual', 'webhook'] as const),
  trigger_url: nullable(
    Type.String({ description: 'Published webhook-triggered workflows: the signed trigger URL (POST)' }),
  ),
  graph: GraphSchema,
  forked_from_id: Type.Union([uuid, Type.Null()]),
  published_at: nullable(dateTime),
  archived_at: nullable(dateTime),
  created_at: dateTime,
  updated_at: dateTime,
});

export const PublishedWorkflowSchema = Type.Object({
  ...WorkflowSchema.properties,
  trigger_secret: Type.Union([Type.String(), Type.Null()], {
    description: 'Webhook-triggered workflows: the HMAC signing secret, shown only here (and on rotation)',
  }),
});

export const TriggerSecretSchema = Type.Object({
  definition_id: uuid,
  trigger_url: Type.String(),
  trigger_secret: Type.String({
    description: 'The new signing secret, returned once; the previous one stops at once',
  }),
});

const name = Type.String({ minLength: 1, maxLength: 200 });
const description = Type.Union([Type.Null(), Type.String({ maxLength: 2000 })]);

export const CreateWorkflowBody = Type.Object(
  { name, description: Type.Optional(description), graph: GraphSchema },
  { additionalProperties: false },
);

export const UpdateWorkflowBody = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description), graph: Type.Optional(GraphSchema) },
  { additionalProperties: false },
);

export const ForkWorkflowBody = Type.Object(
  { name: Type.Optional(name) },
  { additionalProperties: false, description: 'Optional: a name for the copy (default: the original name)' },
);

export const WorkflowIdParams = Type.Object({ definition_id: uuid });

export const ListWorkflowsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  include_archived: Type.Boolean({ default: false, description: 'Include archived workflows' }),
  include_templates: Type.Boolean({
    default: true,
    description: 'Append the system templates after own workflows',
  }),
  status: Type.Optional(Type.Enum(DEFINITION_STATUSES)),
});

export const WorkflowListSchema = pageEnvelope('workflows', WorkflowSchema);

export const StartRunBody = Type.Object(
  {
    input: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Input data, available to step configs as {{input.<field>}}',
      }),
    ),
  },
  { additionalProperties: false },
);

export const IdempotencyHeaders = Type.Object({
  'x-idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Same key and same input return the same run; a different input with the key is 409',
    }),
  ),
});

export const RunSchema = Type.Object({
  run_id: uuid,
  workflow_definition_id: uuid,
  status: Type.Enum(RUN_STATUSES),
  source: Type.Enum(['api', 'webhook'] as const),
  input: Type.Record(Type.String(), Type.Unknown()),
  current_step_id: Type.Union([Type.String(), Type.Null()], { description: 'The next step to execute' }),
  error_message: Type.Union([Type.String(), Type.Null()]),
  created_at: dateTime,
  started_at: nullable(dateTime),
  finished_at: nullable(dateTime),
  updated_at: dateTime,
});

export const StepSchema = Type.Object({
  step_id: Type.String(),
  node_type: Type.Enum(NODE_TYPES),
  status: Type.Enum(STEP_STATUSES),
  output: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  resume_at: nullable(dateTime),
  started_at: dateTime,
  finished_at: nullable(dateTime),
});

export const RunDetailSchema = Type.Object({ ...RunSchema.properties, steps: Type.Array(StepSchema) });

export const RunIdParams = Type.Object({ run_id: uuid });

export const ListRunsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  workflow_definition_id: Type.Optional(uuid),
  status: Type.Optional(Type.Enum(RUN_STATUSES)),
});

export const RunListSchema = pageEnvelope('runs', RunSchema);

export const TriggerParams = Type.Object({ trigger_token: Type.String({ minLength: 1, maxLength: 200 }) });

export const TriggerAcceptedSchema = Type.Object({
  run_id: uuid,
  status: Type.Enum(RUN_STATUSES),
  replayed: Type.Boolean({ description: 'True when the X-Idempotency-Key matched an earlier trigger' }),
});

export { ErrorSchema } from '../../shared/error-schema';
