/**
 * The screening feature's event on the app's bus (docs/platform.md, "Events"):
 * `screening.ownership_status_changed`, a wallet ownership request moved (ownership.machine.ts), inside
 * the transaction that moves it. Travel rule (unhosted wallets) and monitoring (wallet_ownership
 * remediations) follow the final statuses.
 */
import type { OwnershipRow } from './ownership.machine';

export interface OwnershipStatusChange {
  /** The request as it is after the move. */
  request: OwnershipRow;
  at: Date;
}

declare module '../../platform/events' {
  interface AppEvents {
    'screening.ownership_status_changed': OwnershipStatusChange;
  }
}
