/** What created a payment (docs/guides/index.md); shown as `origin` on the transaction. */
export const ORIGIN_TYPES = [
  'paylink',
  'bulk',
  'schedule',
  'recurring',
  'workflow',
  'contract',
  // A billing invoice's payment link, on the platform's own collection project (never a merchant's payment).
  'invoice',
] as const;
export type OriginType = (typeof ORIGIN_TYPES)[number];

export interface Origin {
  type: OriginType;
  /** The creating resource: bulk job, schedule, recurring payment, workflow run, contract request; null for paylink. */
  id: string | null;
}
