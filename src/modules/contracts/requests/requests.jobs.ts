/**
 * A contract request's timers: expiry (sent/in_progress past expires_at) and automatic reminders
 * (every reminder_interval_days, at most one per participant per
 * SVC_CONTRACT_REMINDER_MIN_INTERVAL_SECONDS), run by the jobs runner like the sandbox provider's
 * delayed actions (src/providers/sandbox-delivery.timers.ts); and `runDueContractTimers`, which runs
 * all of them at once for the tests. Envelopes, emails, sealing and payment links are jobs
 * (contracts.jobs.ts); the feature's one loop, the e-signing reconciliation, is
 * esign-reconciliation.worker.ts.
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../../../deps';
import { addDays } from '../../../platform/calendar';
import { defineTimer, runDueTimers } from '../../../platform/jobs/index';
import { runDueSandboxEsignActions } from '../../../providers/sandbox-delivery.timers';
import { recordActivity } from '../../activity/activity-writer.service';
import { isActiveTurn } from '../participants/participants.machine';
import { runEffects } from './after-commit.service';
import { CONTRACT_JOBS, type Effects, noEffects, owe } from './effects.service';
import { endRequest, oweInvitation, setReminder } from './progress.service';
import { lockRequestById, participantsOf, updateParticipant } from './requests.repo';
import { AUTOMATIC, CONTRACT_EXPIRY, CONTRACT_REMINDER } from './requests.transitions';

/**
 * A sent or in-progress request past expires_at expires (the expiry timer's handler): re-read under
 * lock, a request that ended meanwhile, or is not yet due, is left alone.
 */
export const contractExpiryTimer = defineTimer<{ requestId: string }>({
  ...CONTRACT_EXPIRY,
  label: 'Contract request expiry',
  backfill: () => sql`
    select 'contract:' || id::text as key, jsonb_build_object('requestId', id::text) as payload, client_id,
           expires_at as run_at
      from contract_requests where status in ('sent', 'in_progress')`,
  async fire(deps, { requestId }) {
    const fx: Effects = noEffects();
    const acted = await deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const r = await lockRequestById(tx, requestId);
      if (!r || (r.status !== 'sent' && r.status !== 'in_progress') || r.expiresAt > now) return false;
      await endRequest(tx, r, 'expire', { now, actor: AUTOMATIC }, fx);
      // A vendor hosting the signing would still let people sign there: its envelope is cancelled.
      if (deps.providers.esign.hosted && r.envelopeRef)
        await owe(tx, now, fx, CONTRACT_JOBS.voidEnvelope, {
          ref: r.envelopeRef,
          reason: 'Contract request expired',
        });
      await recordActivity(tx, {
        clientId: r.clientId,
        action: 'contract_request.expired',
        at: now,
        actor: { type: 'system', accountId: null, credentialId: null },
        target: { type: 'contract_request', id: r.id, label: r.title },
      });
      return true;
    });
    await runEffects(deps, fx);
    return acted;
  },
});

/**
 * The automatic reminder (every reminder_interval_days; at most one per participant per
 * SVC_CONTRACT_REMINDER_MIN_INTERVAL_SECONDS): the reminder timer's handler. Re-read under lock: a
 * request that ended, or whose next reminder is not yet due, is left alone; after reminding, the
 * next reminder is set (with its timer).
 */
export const contractReminderTimer = defineTimer<{ requestId: string }>({
  ...CONTRACT_REMINDER,
  label: 'Contract reminder',
  backfill: () => sql`
    select 'contract:' || id::text as key, jsonb_build_object('requestId', id::text) as payload, client_id,
           next_reminder_at as run_at
      from contract_requests
     where status in ('sent', 'in_progress') and delivery = 'email' and next_reminder_at is not null`,
  async fire(deps, { requestId }) {
    const minGap = deps.config.contractReminderMinIntervalSeconds * 1000;
    const fx: Effects = noEffects();
    const acted = await deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const r = await lockRequestById(tx, requestId);
      if (
        !r?.reminderIntervalDays ||
        (r.status !== 'sent' && r.status !== 'in_progress') ||
        r.delivery !== 'email' ||
        !r.nextReminderAt ||
        r.nextReminderAt > now
      )
        return false;
      for (const p of await participantsOf(tx, r.id)) {
        if (!isActiveTurn(p.status) || p.status === 'bounced') continue;
        if (p.lastRemindedAt && now.getTime() < p.lastRemindedAt.getTime() + minGap) continue;
        await updateParticipant(tx, p.id, { lastRemindedAt: now, updatedAt: now });
        await oweInvitation(tx, now, fx, p.id, true);
      }
      await setReminder(tx, r, now, addDays(now, r.reminderIntervalDays));
      return true;
    });
    await runEffects(deps, fx);
    return acted;
  },
});

/** Runs the due expiry timers now (tests); returns how many requests expired. */
export async function expireDueRequests(deps: Deps): Promise<number> {
  return runDueTimers(deps, [contractExpiryTimer]);
}

/** Runs the due reminder timers now (tests); returns how many requests reminded. */
export async function sendDueReminders(deps: Deps): Promise<number> {
  return runDueTimers(deps, [contractReminderTimer]);
}

/**
 * Runs what is due now (tests): the due expiry and reminder timers and the sandbox provider's due
 * actions, at once, on the injected clock; in service the jobs runner runs the same timers. No loop
 * runs it. Returns how many acted.
 */
export async function runDueContractTimers(deps: Deps): Promise<number> {
  let n = 0;
  n += await expireDueRequests(deps);
  n += await sendDueReminders(deps);
  if (deps.providers.esign.deliverScheduled) n += await runDueSandboxEsignActions(deps);
  return n;
}
