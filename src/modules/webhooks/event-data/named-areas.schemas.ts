/** `data` of the named areas' events: screening, travel rule, recurring, schedules, bulk links, tickets, billing. */
import { Type } from 'typebox';
import { OWNERSHIP_METHODS, OWNERSHIP_STATUSES, TRANSFER_STATUSES } from '../../../db/schema/index';
import { RISK_LEVELS } from '../../../providers/screening/port';
import { INVOICE_STATUSES } from '../../billing/billing.machine';
import { JOB_STATUSES } from '../../bulk-links/bulk.machine';
import { RECURRING_STATUSES } from '../../recurring/recurring.machine';
import { RUN_STATUSES } from '../../recurring/runs.machine';
import { INSTALMENT_STATUSES, SCHEDULE_STATUSES } from '../../schedules/schedules.machine';
import { TICKET_STATUSES } from '../../tickets/tickets.machine';
import {
  ActorType,
  DateTime,
  Decimal,
  Enum,
  type EventDataEntry,
  EX,
  eventData,
  N,
  Uuid,
} from './kit.schemas';

const DateOnly = () => Type.String({ format: 'date' });
const ClientActor = N(Enum(['client_user', 'client_api'] as const, 'Null when automatic'));

const screeningData = eventData('screening.wallet.completed: a screening reached its result', {
  screening_id: Uuid(),
  wallet_id: Uuid(),
  chain: Type.String(),
  address: Type.String(),
  status: Enum(['completed', 'failed'] as const),
  risk_level: N(Enum(RISK_LEVELS)),
  previous_risk_level: N(Enum(RISK_LEVELS)),
  risk_score: N(Type.Integer()),
  sanctions_hit: N(Type.Boolean()),
  categories: N(Type.Array(Type.String())),
  client_reference: N(Type.String()),
  trigger: Enum(['api', 'rescreen', 'monitoring', 'travel_rule'] as const),
});

const ownershipData = eventData('screening.wallet_ownership.status_changed', {
  request_id: Uuid(),
  wallet_id: Uuid(),
  chain: Type.String(),
  address: Type.String(),
  method: Enum(OWNERSHIP_METHODS),
  previous_status: N(Enum(OWNERSHIP_STATUSES)),
  current_status: Enum(OWNERSHIP_STATUSES),
  user_id: N(Uuid()),
  business_customer_id: N(Uuid()),
  failure_reason: N(Type.String()),
});

const travelRuleData = eventData('travel_rule.transfer.status_changed', {
  transfer_id: Uuid(),
  direction: Enum(['outbound', 'inbound'] as const),
  client_reference: N(Type.String()),
  asset: Type.String(),
  chain: Type.String(),
  amount: Decimal(),
  previous_status: N(Enum(TRANSFER_STATUSES)),
  current_status: Enum(TRANSFER_STATUSES),
  status_reason: N(Type.String()),
  counterparty_vasp_name: N(Type.String()),
  repair_fields: N(Type.Array(Type.String())),
  tx_hash: N(Type.String()),
  actor_type: ClientActor,
  actor_account_id: N(Uuid()),
});

const recurringData = eventData('recurring_payment.status_changed', {
  definition_id: Uuid(),
  previous_status: N(Enum(RECURRING_STATUSES)),
  current_status: Enum(RECURRING_STATUSES),
  status_reason: N(Type.String()),
  project_id: Uuid(),
  user_id: N(Uuid()),
  business_customer_id: N(Uuid()),
  actor_type: ActorType,
  actor_account_id: N(Uuid()),
});

const recurringRunData = eventData('recurring_payment.run.status_changed', {
  definition_id: Uuid(),
  run_id: Uuid(),
  sequence: Type.Integer(),
  kind: Enum(['scheduled', 'on_demand'] as const),
  amount: Decimal(),
  currency: Type.String(),
  transaction_id: N(Uuid()),
  attempt_number: N(Type.Integer()),
  previous_status: N(Enum(RUN_STATUSES)),
  current_status: Enum(RUN_STATUSES),
  failure_reason: N(Type.String()),
  will_retry: Type.Boolean(),
  next_retry_at: N(DateTime()),
});

const scheduleData = eventData('payment_schedule.status_changed', {
  schedule_id: Uuid(),
  previous_status: N(Enum(SCHEDULE_STATUSES)),
  current_status: Enum(SCHEDULE_STATUSES),
  total_amount: Decimal(),
  amount_paid: Decimal(),
  currency: Type.String(),
  user_id: N(Uuid()),
  business_customer_id: N(Uuid()),
});

const instalmentData = eventData('payment_schedule.instalment.status_changed', {
  schedule_id: Uuid(),
  instalment_id: Uuid(),
  sequence: Type.Integer(),
  amount: Decimal(),
  currency: Type.String(),
  due_date: DateOnly(),
  transaction_id: N(Uuid()),
  checkout_url: N(Type.String({ format: 'uri' })),
  link_number: Type.Integer(),
  previous_status: N(Enum(INSTALMENT_STATUSES)),
  current_status: Enum(INSTALMENT_STATUSES),
});

const bulkData = eventData('paylink.bulk.status_changed: every job transition, creation included', {
  bulk_id: Uuid(),
  previous_status: N(Enum(JOB_STATUSES)),
  current_status: Enum(JOB_STATUSES),
  total: Type.Integer(),
  created: Type.Integer(),
  failed: Type.Integer(),
  invalid: Type.Integer(),
  canceled: Type.Integer(),
});

const ticketStatusData = eventData('ticket.status_changed', {
  ticket_id: Uuid(),
  number: Type.Integer(),
  previous_status: N(Enum(TICKET_STATUSES)),
  current_status: Enum(TICKET_STATUSES),
  actor_type: ActorType,
});

const ticketMessageData = eventData('ticket.message.created', {
  ticket_id: Uuid(),
  number: Type.Integer(),
  message_id: Uuid(),
  author_type: Enum(['client', 'staff'] as const),
  created_at: DateTime(),
});

const invoiceData = eventData('billing.invoice.status_changed', {
  invoice_id: Uuid(),
  number: N(Type.String({ description: 'Null while draft' })),
  previous_status: N(Enum(INVOICE_STATUSES)),
  current_status: Enum(INVOICE_STATUSES),
  total: Decimal(),
  amount_due: Decimal(),
  currency: Type.String(),
  due_date: N(DateOnly()),
});

export const NAMED_AREA_EVENT_DATA = {
  'screening.wallet.completed': {
    schema: screeningData,
    example: {
      screening_id: EX.id1,
      wallet_id: EX.id2,
      chain: 'ethereum',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      status: 'completed',
      risk_level: 'low',
      previous_risk_level: null,
      risk_score: 12,
      sanctions_hit: false,
      categories: [],
      client_reference: 'customer-7',
      trigger: 'api',
    },
  },
  'screening.wallet_ownership.status_changed': {
    schema: ownershipData,
    example: {
      request_id: EX.id1,
      wallet_id: EX.id2,
      chain: 'ethereum',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      method: 'message_signing',
      previous_status: 'verifying',
      current_status: 'verified',
      user_id: EX.user,
      business_customer_id: null,
      failure_reason: null,
    },
  },
  'travel_rule.transfer.status_changed': {
    schema: travelRuleData,
    example: {
      transfer_id: EX.id1,
      direction: 'outbound',
      client_reference: 'wd-1001',
      asset: 'USDC',
      chain: 'ethereum',
      amount: '2500.00',
      previous_status: 'awaiting_counterparty',
      current_status: 'accepted',
      status_reason: null,
      counterparty_vasp_name: 'Example Exchange',
      repair_fields: null,
      tx_hash: null,
      actor_type: null,
      actor_account_id: null,
    },
  },
  'recurring_payment.status_changed': {
    schema: recurringData,
    example: {
      definition_id: EX.id1,
      previous_status: 'pending_authorization',
      current_status: 'active',
      status_reason: null,
      project_id: EX.project,
      user_id: EX.user,
      business_customer_id: null,
      actor_type: null,
      actor_account_id: null,
    },
  },
  'recurring_payment.run.status_changed': {
    schema: recurringRunData,
    example: {
      definition_id: EX.id1,
      run_id: EX.id2,
      sequence: 3,
      kind: 'scheduled',
      amount: '19.99',
      currency: 'EUR',
      transaction_id: EX.transaction,
      attempt_number: 1,
      previous_status: 'processing',
      current_status: 'succeeded',
      failure_reason: null,
      will_retry: false,
      next_retry_at: null,
    },
  },
  'payment_schedule.status_changed': {
    schema: scheduleData,
    example: {
      schedule_id: EX.id1,
      previous_status: 'active',
      current_status: 'completed',
      total_amount: '300.00',
      amount_paid: '300.00',
      currency: 'EUR',
      user_id: EX.user,
      business_customer_id: null,
    },
  },
  'payment_schedule.instalment.status_changed': {
    schema: instalmentData,
    example: {
      schedule_id: EX.id1,
      instalment_id: EX.id2,
      sequence: 1,
      amount: '100.00',
      currency: 'EUR',
      due_date: '2026-12-01',
      transaction_id: EX.transaction,
      checkout_url: `https://pay.example.com/checkout/${EX.transaction}`,
      link_number: 1,
      previous_status: 'scheduled',
      current_status: 'issued',
    },
  },
  'paylink.bulk.status_changed': {
    schema: bulkData,
    example: {
      bulk_id: EX.id1,
      previous_status: 'processing',
      current_status: 'completed',
      total: 120,
      created: 118,
      failed: 0,
      invalid: 2,
      canceled: 0,
    },
  },
  'ticket.status_changed': {
    schema: ticketStatusData,
    example: {
      ticket_id: EX.id1,
      number: 1042,
      previous_status: 'open',
      current_status: 'awaiting_client',
      actor_type: 'service_internal',
    },
  },
  'ticket.message.created': {
    schema: ticketMessageData,
    example: { ticket_id: EX.id1, number: 1042, message_id: EX.id2, author_type: 'staff', created_at: EX.at },
  },
  'billing.invoice.status_changed': {
    schema: invoiceData,
    example: {
      invoice_id: EX.id1,
      number: 'INV-2026-000123',
      previous_status: 'draft',
      current_status: 'open',
      total: '119.00',
      amount_due: '119.00',
      currency: 'EUR',
      due_date: '2026-12-27',
    },
  },
} satisfies Record<string, EventDataEntry>;
