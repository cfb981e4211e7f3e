/** `data` of the refund events (docs/guides/refunds.md). */
import { Type } from 'typebox';
import { REFUND_RECONCILIATION_STATES, REFUND_STATUSES } from '../../../db/schema/index';
import { Decimal, Enum, type EventDataEntry, EX, eventData, N, Uuid } from './kit.schemas';

const refundFields = (previous: boolean) => ({
  refund_id: Uuid(),
  transaction_id: Uuid('The refunded payment'),
  project_id: Uuid(),
  amount: Decimal('Decimal string in major units, in the payment currency'),
  currency: Type.String(),
  previous_status: previous
    ? N(Enum(REFUND_STATUSES))
    : N(Enum(REFUND_STATUSES, 'Always null: the refund was just created')),
  current_status: Enum(REFUND_STATUSES),
  reason: N(Type.String({ description: "The merchant's reason" })),
  failure_reason: N(Type.String({ description: 'Why the network refused or failed it' })),
  reconciliation_state: Enum(
    REFUND_RECONCILIATION_STATES,
    '`manual_review_required`: the network cannot say whether the money moved; the refund stays processing (an event with previous_status == current_status announces it)',
  ),
  review_reason: N(
    Type.String({ description: 'Why the refund is held for manual review; null unless held' }),
  ),
  metadata: Type.Record(Type.String(), Type.Unknown(), { description: "The refund's own metadata" }),
});

const createdData = eventData(
  'refund.created: a refund of a paid payment was requested',
  refundFields(false),
);
const statusData = eventData(
  'refund.status_changed: a refund moved, or was held for manual review (previous_status == current_status)',
  refundFields(true),
);

const example = {
  refund_id: EX.id1,
  transaction_id: EX.transaction,
  project_id: EX.project,
  amount: '25.00',
  currency: 'EUR',
  reason: 'Returned item',
  failure_reason: null,
  reconciliation_state: 'none',
  review_reason: null,
  metadata: { order_id: '42' },
};

export const REFUND_EVENT_DATA = {
  'refund.created': {
    schema: createdData,
    example: { ...example, previous_status: null, current_status: 'pending' },
  },
  'refund.status_changed': {
    schema: statusData,
    example: { ...example, previous_status: 'processing', current_status: 'succeeded' },
  },
} satisfies Record<string, EventDataEntry>;
