/** The travel-rule transfer statuses (a leaf: the event schemas read it without the machine's imports). */
export const TRANSFER_STATUSES = [
  'not_required',
  'pending',
  'awaiting_counterparty',
  'awaiting_ownership',
  'counterparty_not_reachable',
  'needs_repair',
  'awaiting_review',
  'accepted',
  'rejected',
  'completed',
  'canceled',
  'expired',
] as const;
