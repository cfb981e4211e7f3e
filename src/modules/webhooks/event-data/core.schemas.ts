/** `data` of the spec's core events: payments, KYC/KYB, opcos, projects, monitoring, webhook.test. */
import { Type } from 'typebox';
import { EXTERNAL_STATUSES, KYB_STATUSES, KYC_STATUSES } from '../../customers/customers.schemas';
import { DECISIONS } from '../../monitoring/engine.policy';
import { OPCO_STATUSES } from '../../opcos/opcos.machine';
import { RECONCILIATION_STATES, TRANSACTION_STATUSES } from '../../payments/payments.machine';
import { ActorType, Decimal, Enum, type EventDataEntry, EX, eventData, N, Uuid } from './kit.schemas';

const SOURCES = ['none', 'service', 'external'] as const;
const STATUS_SOURCE = ['provider_webhook', 'client_api', 'system'] as const;

export const PaymentStatusChangedData = eventData(
  'payment.status_changed: the transaction fields, the move and who made it',
  {
    transaction_id: Uuid(),
    ref_id: Type.String({ description: 'Session-scoped' }),
    transfer_id: N(Type.String({ description: 'Session-scoped' })),
    amount: Decimal(),
    currency: Type.String({ description: 'ISO 4217' }),
    user_id: N(Uuid()),
    business_customer_id: N(Uuid()),
    project_id: Uuid(),
    contract_request_id: N(Uuid()),
    previous_payment_status: Enum(TRANSACTION_STATUSES),
    current_payment_status: Enum(TRANSACTION_STATUSES),
    reconciliation_state: Enum(RECONCILIATION_STATES),
    status_detail: N(
      Type.String({ description: 'The network detail code (provider_status); new values may be added' }),
    ),
    status_reason: N(Type.String()),
    actor_type: ActorType,
    actor_account_id: N(Type.String({ description: 'Always null when actor_type is service_internal' })),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: "The payment link's own metadata" }),
  },
);

/** The attestation, verification source and trigger fields KYC and KYB events share. */
const subjectChange = {
  previous_external_status: N(Enum(EXTERNAL_STATUSES)),
  current_external_status: N(Enum(EXTERNAL_STATUSES)),
  previous_verification_source: Enum(SOURCES),
  current_verification_source: Enum(SOURCES),
  source: Enum(STATUS_SOURCE),
};

const kycData = eventData('kyc.status_changed: a KYC user whose status, mode or source changed', {
  user_id: Uuid(),
  email: Type.String(),
  verification_mode: Enum(['service_kyc', 'external_attestation'] as const),
  previous_kyc_status: Enum(KYC_STATUSES),
  current_kyc_status: Enum(KYC_STATUSES),
  ...subjectChange,
});

const kybData = eventData('kyb.status_changed: a business customer whose status, mode or source changed', {
  business_customer_id: Uuid(),
  company_name: Type.String(),
  registration_number: N(Type.String()),
  country: Type.String(),
  verification_mode: Enum(['service_kyc', 'service_kyb', 'external_attestation'] as const),
  previous_kyb_status: Enum(KYB_STATUSES),
  current_kyb_status: Enum(KYB_STATUSES),
  ...subjectChange,
});

const opcoData = eventData('opco.status_changed', {
  opco_id: Uuid(),
  sub_tpp_id: N(Type.String({ description: 'Null until activation' })),
  name: Type.String(),
  previous_opco_status: Enum(OPCO_STATUSES),
  current_opco_status: Enum(OPCO_STATUSES),
  opco_status_reason: N(Type.String()),
});

const projectData = eventData('project.frozen_changed: staff froze or unfroze a project', {
  project_id: Uuid(),
  project_name: Type.String(),
  previous_is_frozen: Type.Boolean(),
  current_is_frozen: Type.Boolean(),
  source: Enum(['admin'] as const),
  actor_type: ActorType,
  actor_id: N(Uuid()),
});

const monitoringData = eventData('monitoring.transaction.status_changed: a monitoring decision', {
  monitored_transaction_id: Uuid(),
  client_reference: Type.String(),
  previous_decision: Enum([...DECISIONS, 'NONE'] as const, '`NONE` for the first decision'),
  decision: Enum(DECISIONS),
  decision_reason: N(Type.String()),
  sanctions_hit: Type.Boolean(),
  remediation_url: N(Type.String({ format: 'uri' })),
  remediation_status: N(Enum(['pending', 'submitted', 'expired'] as const)),
});

const webhookTestData = eventData('webhook.test: sent by POST /webhooks/subscription/test', {
  message: Type.String(),
  requested_by_account_id: N(Uuid()),
});

export const CORE_EVENT_DATA = {
  'payment.status_changed': {
    schema: PaymentStatusChangedData,
    example: {
      transaction_id: EX.transaction,
      ref_id: 'ref_8f2c41',
      transfer_id: null,
      amount: '49.90',
      currency: 'EUR',
      user_id: EX.user,
      business_customer_id: null,
      project_id: EX.project,
      contract_request_id: null,
      previous_payment_status: 'pending',
      current_payment_status: 'success',
      reconciliation_state: 'none',
      status_detail: 'completed',
      status_reason: null,
      actor_type: null,
      actor_account_id: null,
      metadata: { order_id: '42' },
    },
  },
  'kyc.status_changed': {
    schema: kycData,
    example: {
      user_id: EX.user,
      email: 'payer@example.com',
      verification_mode: 'service_kyc',
      previous_kyc_status: 'pending',
      current_kyc_status: 'approved',
      previous_external_status: null,
      current_external_status: null,
      previous_verification_source: 'none',
      current_verification_source: 'service',
      source: 'provider_webhook',
    },
  },
  'kyb.status_changed': {
    schema: kybData,
    example: {
      business_customer_id: EX.business,
      company_name: 'Acme Trading GmbH',
      registration_number: 'HRB 12345',
      country: 'DE',
      verification_mode: 'service_kyb',
      previous_kyb_status: 'pending',
      current_kyb_status: 'approved',
      previous_external_status: null,
      current_external_status: null,
      previous_verification_source: 'none',
      current_verification_source: 'service',
      source: 'provider_webhook',
    },
  },
  'opco.status_changed': {
    schema: opcoData,
    example: {
      opco_id: EX.opco,
      sub_tpp_id: 'STPP-4821',
      name: 'Acme Retail',
      previous_opco_status: 'awaiting_approval',
      current_opco_status: 'activated',
      opco_status_reason: null,
    },
  },
  'project.frozen_changed': {
    schema: projectData,
    example: {
      project_id: EX.project,
      project_name: 'Web shop',
      previous_is_frozen: false,
      current_is_frozen: true,
      source: 'admin',
      actor_type: 'service_internal',
      actor_id: null,
    },
  },
  'monitoring.transaction.status_changed': {
    schema: monitoringData,
    example: {
      monitored_transaction_id: EX.id1,
      client_reference: 'order-42',
      previous_decision: 'NONE',
      decision: 'IN_REVIEW',
      decision_reason: 'Rule large_amount matched',
      sanctions_hit: false,
      remediation_url: null,
      remediation_status: null,
    },
  },
  'webhook.test': {
    schema: webhookTestData,
    example: {
      message: 'This is a test event sent from the webhook settings.',
      requested_by_account_id: EX.account,
    },
  },
} satisfies Record<string, EventDataEntry>;
