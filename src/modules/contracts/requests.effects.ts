/**
 * Work that follows a committed change and must not run inside its transaction: emails, provider
 * calls, the contract-backed payment link. A transaction collects them; `runEffects` performs them
 * after the commit. Payment links are also owed in the row (`payment_due`), so a crash in between is
 * caught up by the worker.
 */
import type { Deps } from '../../deps';
import type { MailMessage } from '../../providers/mail/port';

export interface Effects {
  mails: MailMessage[];
  invited: { ref: string; participants: { participantId: string; email: string }[] }[];
  voidRef: { ref: string; reason: string } | null;
  paymentFor: string | null;
  workflowRequestIds: string[];
}

export const noEffects = (): Effects => ({
  mails: [],
  invited: [],
  voidRef: null,
  paymentFor: null,
  workflowRequestIds: [],
});

export type EffectHooks = {
  settlePayment?: (deps: Deps, requestId: string) => Promise<void>;
  requestTerminal?: (deps: Deps, requestId: string) => Promise<void>;
};
export const effectHooks: EffectHooks = {};

export async function runEffects(deps: Deps, e: Effects): Promise<void> {
  for (const m of e.mails) {
    try {
      await deps.mailer.send(m);
    } catch (err) {
      deps.log.warn({ err }, 'contract email could not be sent');
    }
  }
  if (e.voidRef) {
    try {
      await deps.providers.esign.voidEnvelope(e.voidRef.ref, e.voidRef.reason);
    } catch (err) {
      deps.log.warn({ err }, 'e-signing provider was not told about the void');
    }
  }
  for (const inv of e.invited) {
    try {
      await deps.providers.esign.participantsInvited(inv.ref, inv.participants);
    } catch (err) {
      deps.log.warn({ err }, 'e-signing provider invitation hook failed');
    }
  }
  if (e.paymentFor && effectHooks.settlePayment) await effectHooks.settlePayment(deps, e.paymentFor);
  for (const id of e.workflowRequestIds)
    if (effectHooks.requestTerminal) await effectHooks.requestTerminal(deps, id);
}
