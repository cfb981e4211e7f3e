/**
 * The contract background work, each step claiming due rows with FOR UPDATE SKIP LOCKED on the
 * injected clock: expiry (sent/in_progress past expires_at), automatic reminders (every
 * reminder_interval_days, at most one per participant per SVC_CONTRACT_REMINDER_MIN_INTERVAL_SECONDS)
 * and the sandbox provider's delayed actions. Envelopes, emails, sealing and payment links are jobs
 * (contracts.jobs.ts).
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { addDays } from '../../platform/calendar';
import { recordActivity } from '../activity/activity.writer';
import { isActiveTurn } from './participants.machine';
import { runEffects } from './requests.after-commit';
import { type Effects, noEffects } from './requests.effects';
import { endRequest, oweInvitation } from './requests.progress';
import { lockRequestById, participantsOf, updateParticipant, updateRequest } from './requests.repo';
import { AUTOMATIC } from './requests.transitions';

export async function expireDueRequests(deps: Deps, limit = 50): Promise<number> {
  const now = deps.clock.now();
  const fx: Effects = noEffects();
  const n = await deps.db.transaction(async (tx) => {
    const res = await tx.execute(sql`
      select id from contract_requests where status in ('sent','in_progress') and expires_at <= ${now}
       order by expires_at limit ${limit} for update skip locked`);
    const ids = rowsOf<{ id: string }>(res).map((r) => r.id);
    for (const id of ids) {
      const r = await lockRequestById(tx, id);
      if (!r) continue;
      await endRequest(tx, r, 'expire', { now, actor: AUTOMATIC }, fx);
      await recordActivity(tx, {
        clientId: r.clientId,
        action: 'contract_request.expired',
        at: now,
        actor: { type: 'system', accountId: null, credentialId: null },
        target: { type: 'contract_request', id: r.id, label: r.title },
      });
    }
    return ids.length;
  });
  await runEffects(deps, fx);
  return n;
}

export async function sendDueReminders(deps: Deps, limit = 50): Promise<number> {
  const now = deps.clock.now();
  const minGap = deps.config.contractReminderMinIntervalSeconds * 1000;
  const fx: Effects = noEffects();
  const n = await deps.db.transaction(async (tx) => {
    const res = await tx.execute(sql`
      select id from contract_requests
       where status in ('sent','in_progress') and delivery = 'email' and next_reminder_at <= ${now}
       order by next_reminder_at limit ${limit} for update skip locked`);
    const ids = rowsOf<{ id: string }>(res).map((r) => r.id);
    for (const id of ids) {
      const r = await lockRequestById(tx, id);
      if (!r?.reminderIntervalDays) continue;
      for (const p of await participantsOf(tx, r.id)) {
        if (!isActiveTurn(p.status) || p.status === 'bounced') continue;
        if (p.lastRemindedAt && now.getTime() < p.lastRemindedAt.getTime() + minGap) continue;
        await updateParticipant(tx, p.id, { lastRemindedAt: now, updatedAt: now });
        await oweInvitation(tx, now, fx, p.id, true);
      }
      await updateRequest(tx, r.id, { nextReminderAt: addDays(now, r.reminderIntervalDays) });
    }
    return ids.length;
  });
  await runEffects(deps, fx);
  return n;
}

export async function runContractsWorker(deps: Deps): Promise<number> {
  let n = 0;
  n += await expireDueRequests(deps);
  n += await sendDueReminders(deps);
  if (deps.providers.esign.runDueActions) n += await deps.providers.esign.runDueActions(20);
  return n;
}
