/** `data` of the contract and workflow events. */
import { Type } from 'typebox';
import { PARTICIPANT_STATUSES } from '../../contracts/participants/participants.machine';
import { REQUEST_STATUSES } from '../../contracts/requests/requests.machine';
import { NODE_TYPES } from '../../workflows/workflows-graph.policy';
import { ActorType, DateTime, Enum, type EventDataEntry, EX, eventData, N, Uuid } from './kit.schemas';

const requestStatusData = eventData('contract.request.status_changed: every request status change', {
  contract_request_id: Uuid(),
  flow_id: N(Uuid()),
  template_ids: Type.Array(Uuid()),
  title: Type.String(),
  external_reference: N(Type.String()),
  previous_status: N(Enum(REQUEST_STATUSES)),
  current_status: Enum(REQUEST_STATUSES),
  status_reason: N(Type.String()),
  actor_type: ActorType,
  actor_account_id: N(Uuid()),
});

const participantStatusData = eventData('contract.participant.status_changed', {
  contract_request_id: Uuid(),
  participant_id: Uuid(),
  role: Type.String(),
  kind: Enum(['signer', 'approver', 'viewer'] as const),
  name: Type.String(),
  email: Type.String(),
  user_id: N(Uuid()),
  business_customer_id: N(Uuid()),
  signing_order: Type.Integer(),
  previous_status: N(Enum(PARTICIPANT_STATUSES)),
  current_status: Enum(PARTICIPANT_STATUSES),
  decline_reason: N(Type.String()),
});

const requestCompletedData = eventData(
  'contract.request.completed: after the status event; with a `payment`, it carries the payment link ' +
    '(null for both only with `payment.error` or without `payment`)',
  {
    contract_request_id: Uuid(),
    flow_id: N(Uuid()),
    title: Type.String(),
    external_reference: N(Type.String()),
    completed_at: DateTime(),
    participants: Type.Array(
      Type.Object({
        participant_id: Uuid(),
        role: Type.String(),
        email: Type.String(),
        name: Type.String(),
        completed_at: N(DateTime()),
      }),
    ),
    documents: Type.Array(
      Type.Object({
        document_id: Uuid(),
        file_name: Type.String(),
        sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
        download_path: Type.String({
          description: '/api/v1/contracts/requests/{id}/documents/{document_id}',
        }),
      }),
    ),
    certificate_sha256: N(Type.String({ pattern: '^[0-9a-f]{64}$' })),
    transaction_id: N(Uuid()),
    checkout_url: N(Type.String({ format: 'uri' })),
  },
);

const runData = (type: string) => eventData(type, { run_id: Uuid(), workflow_definition_id: Uuid() });

const runFailedData = eventData('workflow.run.failed', {
  run_id: Uuid(),
  workflow_definition_id: Uuid(),
  error_message: N(Type.String({ description: 'Vendor names masked' })),
});

const stepCompletedData = eventData('workflow.step.completed: a step that completed successfully', {
  run_id: Uuid(),
  step_id: Type.String(),
  node_type: Enum(NODE_TYPES),
  output: Type.Record(Type.String(), Type.Unknown(), { description: 'Shape depends on node_type' }),
});

const sha = 'f3b1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

export const CONTRACT_WORKFLOW_EVENT_DATA = {
  'contract.request.status_changed': {
    schema: requestStatusData,
    example: {
      contract_request_id: EX.request,
      flow_id: null,
      template_ids: [EX.template],
      title: 'Service agreement',
      external_reference: 'ORD-1',
      previous_status: 'in_progress',
      current_status: 'completed',
      status_reason: null,
      actor_type: null,
      actor_account_id: null,
    },
  },
  'contract.participant.status_changed': {
    schema: participantStatusData,
    example: {
      contract_request_id: EX.request,
      participant_id: EX.participant,
      role: 'client',
      kind: 'signer',
      name: 'Cleo Client',
      email: 'cleo@example.com',
      user_id: null,
      business_customer_id: null,
      signing_order: 1,
      previous_status: 'viewed',
      current_status: 'completed',
      decline_reason: null,
    },
  },
  'contract.request.completed': {
    schema: requestCompletedData,
    example: {
      contract_request_id: EX.request,
      flow_id: EX.flow,
      title: 'Service agreement',
      external_reference: 'ORD-1',
      completed_at: EX.at,
      participants: [
        {
          participant_id: EX.participant,
          role: 'client',
          email: 'cleo@example.com',
          name: 'Cleo Client',
          completed_at: EX.at,
        },
      ],
      documents: [
        {
          document_id: EX.document,
          file_name: 'agreement-signed.pdf',
          sha256: sha,
          download_path: `/api/v1/contracts/requests/${EX.request}/documents/${EX.document}`,
        },
      ],
      certificate_sha256: sha,
      transaction_id: EX.transaction,
      checkout_url: `https://pay.example.com/checkout/${EX.transaction}`,
    },
  },
  'workflow.run.started': {
    schema: runData('workflow.run.started'),
    example: { run_id: EX.run, workflow_definition_id: EX.definition },
  },
  'workflow.run.completed': {
    schema: runData('workflow.run.completed'),
    example: { run_id: EX.run, workflow_definition_id: EX.definition },
  },
  'workflow.run.failed': {
    schema: runFailedData,
    example: {
      run_id: EX.run,
      workflow_definition_id: EX.definition,
      error_message: "Step 'notify' (http) failed: 500",
    },
  },
  'workflow.step.completed': {
    schema: stepCompletedData,
    example: { run_id: EX.run, step_id: 'verify', node_type: 'kyc', output: { kyc_status: 'approved' } },
  },
} satisfies Record<string, EventDataEntry>;
