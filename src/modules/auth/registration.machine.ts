/** Client lifecycle as far as self-service registration goes. */
export const CLIENT_STATUSES = ['pending_verification', 'active'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

const TRANSITIONS: Record<ClientStatus, readonly ClientStatus[]> = {
  pending_verification: ['active'],
  active: [],
};

export const canTransition = (from: ClientStatus, to: ClientStatus): boolean =>
  TRANSITIONS[from].includes(to);
export const isAwaitingVerification = (status: string): boolean => status === 'pending_verification';
