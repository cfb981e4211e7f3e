/**
 * Sandbox endpoints: POST /sandbox/recurring-payments/{id}/simulate asks the sandbox bank to emit a
 * mandate notification (the state change runs the production path through the signed route), and
 * POST …/run-next starts the next scheduled run, or a due retry, now.
 */
import { and, asc, eq } from 'drizzle-orm';
import { recurringPayments, recurringRuns } from '../../db/schema/index';
import type { Deps } from '../../deps';
import type { ClientAuth } from '../../plugins/auth';
import type { MandateCode } from '../../providers/bank/port';
import { AppError, badRequest, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { PaymentMessages } from '../payments/payments.messages';
import { createBankMandate } from './mandate-page.service';
import {
  assertRecurringTransition,
  assertRecurringWritable,
  type RecurringTrigger,
} from './recurring.machine';
import { RecurringMessages } from './recurring.messages';
import { getRecurring, getRun, loadDefinition } from './recurring.service';
import { startAutoRetry, startScheduledRun } from './recurring.worker';
import { launchAttempt, mandateChargeable } from './recurring-attempts.service';

const ACTIONS: Record<string, { trigger: RecurringTrigger; code: MandateCode }> = {
  authorize: { trigger: 'authorize', code: 'mandate_authorized' },
  reject_authorization: { trigger: 'authorization_fail', code: 'mandate_rejected' },
  revoke: { trigger: 'revoke', code: 'mandate_revoked' },
  expire_mandate: { trigger: 'expire', code: 'mandate_expired' },
};

export const NO_RUN_TO_START = 'No scheduled run or retry to start';

function sandboxOnly(deps: Deps) {
  const network = deps.providers.bank.mandates;
  if (deps.config.environment !== 'sandbox' || !network?.simulateMandate) throw notFound(M.notFound);
  return network;
}

export async function simulateRecurring(deps: Deps, auth: ClientAuth, id: string, action: string) {
  const network = sandboxOnly(deps);
  const d = await loadDefinition(deps, auth.clientId, id);
  const a = ACTIONS[action]!;
  assertRecurringTransition(a.trigger, d.status);
  let ref = d.mandateRef;
  if (!ref) {
    // The payer has not picked a bank yet: the sandbox picks its first bank.
    const bank = (await deps.providers.bank.listBanks({ purpose: 'mandate' }))[0]!;
    ({ mandateRef: ref } = await createBankMandate(deps, d, bank.id, 'Sandbox merchant'));
    await deps.db
      .update(recurringPayments)
      .set({ mandateRef: ref, bankId: bank.id, bankName: bank.name })
      .where(eq(recurringPayments.id, d.id));
  }
  try {
    await network.simulateMandate!(ref, a.code);
  } catch (err) {
    deps.log.error({ err, definitionId: id }, 'sandbox mandate simulation failed');
    throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
  }
  return getRecurring(deps, auth.clientId, id);
}

export async function runNext(deps: Deps, auth: ClientAuth, id: string) {
  sandboxOnly(deps);
  const d = await loadDefinition(deps, auth.clientId, id);
  assertRecurringWritable(d.status);
  if (!mandateChargeable(d, deps.clock.now())) throw badRequest(RecurringMessages.mandateNotAuthorized);
  for (const status of ['scheduled', 'retry_scheduled'] as const) {
    const [r] = await deps.db
      .select()
      .from(recurringRuns)
      .where(and(eq(recurringRuns.definitionId, id), eq(recurringRuns.status, status)))
      .orderBy(asc(recurringRuns.sequence))
      .limit(1);
    if (!r) continue;
    const started =
      status === 'scheduled'
        ? await startScheduledRun(deps, r.id, true)
        : await startAutoRetry(deps, r.id, true);
    if (typeof started === 'string') await launchAttempt(deps, started);
    return getRun(deps, auth.clientId, id, r.id);
  }
  throw badRequest(NO_RUN_TO_START);
}
