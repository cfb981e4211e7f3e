/** Subscribable event types (docs/guides/webhooks.md). `webhook.test` is a system event, always delivered on test. */
export const EVENT_TYPES = [
  'payment.status_changed',
  'kyc.status_changed',
  'kyb.status_changed',
  'opco.status_changed',
  'project.frozen_changed',
  'contract.request.status_changed',
  'contract.participant.status_changed',
  'contract.request.completed',
  'monitoring.transaction.status_changed',
  'workflow.run.started',
  'workflow.run.completed',
  'workflow.run.failed',
  'workflow.step.completed',
  // The named areas (docs/guides/index.md), listed after the spec's 13 in this order.
  'screening.wallet.completed',
  'screening.wallet_ownership.status_changed',
  'travel_rule.transfer.status_changed',
  'recurring_payment.status_changed',
  'recurring_payment.run.status_changed',
  'payment_schedule.status_changed',
  'payment_schedule.instalment.status_changed',
  'paylink.bulk.status_changed',
  'ticket.status_changed',
  'ticket.message.created',
  'billing.invoice.status_changed',
  // Refunds (docs/guides/refunds.md).
  'refund.created',
  'refund.status_changed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export const SYSTEM_EVENT_TYPES = ['webhook.test'] as const;
export type AnyEventType = EventType | (typeof SYSTEM_EVENT_TYPES)[number];
