/**
 * Work that follows a committed change of a contract request and must not run inside its
 * transaction: emails, calls to the e-signing provider, sealing the documents, the contract-backed
 * payment link. Each is a job written in the change's transaction (`owe`), so it exists exactly when
 * the change commits and is retried by the jobs runner when it fails (docs/platform.md, "Jobs");
 * `runEffects` (after-commit.service.ts) gives every job its first attempt right after the commit.
 */
import type { DbOrTx } from '../../../db/client';
import type { Deps } from '../../../deps';
import { EMAIL_RETRY, enqueueJobId } from '../../../platform/jobs/index';

/** The contract job kinds and their retries; the handlers are in contracts.jobs.ts. */
export const CONTRACT_JOBS = {
  invitationEmail: { kind: 'contracts.invitation_email', ...EMAIL_RETRY },
  ccEmail: { kind: 'contracts.cc_email', ...EMAIL_RETRY },
  completedEmail: { kind: 'contracts.completed_email', ...EMAIL_RETRY },
  paymentEmail: { kind: 'contracts.payment_email', ...EMAIL_RETRY },
  /** The provider is told about a void (it stops reminding the participants). */
  voidEnvelope: { kind: 'contracts.void_envelope', maxAttempts: 10 },
  /** The provider is told a signing group was invited (it may bounce an address). */
  participantsInvited: { kind: 'contracts.participants_invited', maxAttempts: 10 },
  /** A vendor hosting the signing replaces a corrected participant's recipient (its old link stops working). */
  replaceRecipient: { kind: 'contracts.replace_recipient', maxAttempts: 10 },
  /** The provider envelope of a sent request: 30 s doubling to 1 h, for about four days. */
  createEnvelope: {
    kind: 'contracts.create_envelope',
    maxAttempts: 100,
    backoffSeconds: [30, 60, 120, 240, 480, 960, 1920, 3600],
  },
  /** Every signer completed: seal the PDFs, build the certificate, then complete the request. */
  seal: { kind: 'contracts.seal', maxAttempts: 10 },
  /** A completed request with a payment: create its payment link. */
  settlePayment: { kind: 'contracts.settle_payment', maxAttempts: 10 },
} as const;

type JobSpec = (typeof CONTRACT_JOBS)[keyof typeof CONTRACT_JOBS];

export interface Effects {
  /** Jobs written in the transaction, run once at once after its commit. */
  jobIds: (string | null)[];
  /** Requests that reached a terminal status: their workflow runs are woken after the commit. */
  workflowRequestIds: string[];
}

export const noEffects = (): Effects => ({ jobIds: [], workflowRequestIds: [] });

/** Writes a job in the caller's transaction and remembers it for after the commit. */
export async function owe(
  tx: DbOrTx,
  now: Date,
  fx: Effects,
  spec: JobSpec,
  payload: Record<string, unknown>,
  opts: { dedupeKey?: string; clientId?: string } = {},
): Promise<void> {
  fx.jobIds.push(await enqueueJobId(tx, { now: () => now }, spec, { payload, runAt: now, ...opts }));
}

/** Contract requests that reached a terminal status (or were sent): a workflow waiting on one wakes. */
export interface ContractRequestsMovedEvent {
  requestIds: string[];
}

declare module '../../../platform/events' {
  interface AppEvents {
    'contracts.requests_moved': ContractRequestsMovedEvent;
  }
}

/**
 * Tells the app's bus which requests moved (after the change committed, in a transaction of its
 * own): the workflows feature wakes the runs waiting on them. Nothing is registered at import time.
 */
export async function wakeWorkflowRuns(deps: Deps, fx: Effects): Promise<void> {
  if (fx.workflowRequestIds.length === 0) return;
  const requestIds = [...new Set(fx.workflowRequestIds)];
  await deps.db.transaction((tx) => deps.events.emit(tx, 'contracts.requests_moved', { requestIds }));
}
