/** Wallet ownership statuses and methods (a leaf: the event schemas read it without the machine's imports). */
export const OWNERSHIP_STATUSES = [
  'pending',
  'verifying',
  'verified',
  'failed',
  'expired',
  'canceled',
] as const;
export const OWNERSHIP_METHODS = ['message_signing', 'satoshi_test', 'self_declaration'] as const;
