/**
 * The kyc feature's event on the app's bus (docs/platform.md, "Events"): `kyc.verification_result`,
 * a provider's result recorded for a verification (notifications.service.ts), inside the transaction
 * that records it. Monitoring's identity_reverification remediation follows it.
 */
import type { RecordRow, SessionRow } from './verification.repo';

export interface VerificationResultEvent {
  session: SessionRow;
  record: RecordRow;
  /** When the result was recorded. */
  at: Date;
}

declare module '../../platform/events' {
  interface AppEvents {
    'kyc.verification_result': VerificationResultEvent;
  }
}
