/**
 * Runs what is due now (tests): the feature's due timers at once, on the injected clock. No loop
 * runs it: monitored re-screens, ownership expiry and the sandbox provider's notifications are
 * timers the jobs runner runs (docs/platform.md, "Timers"); their handlers are in
 * screening.service.ts, ownership.service.ts and src/providers/sandbox-delivery.timers.ts.
 */
import type { Deps } from '../../deps';
import { deliverDueSandboxScreening } from '../../providers/sandbox-delivery.timers';
import { expireOwnershipRequests } from './ownership.service';
import { rescreenDueWallets } from './screening.service';

export async function runDueScreeningTimers(deps: Deps): Promise<number> {
  let n = 0;
  n += await rescreenDueWallets(deps);
  n += await expireOwnershipRequests(deps, 50);
  if (deps.providers.screening.sandbox) n += await deliverDueSandboxScreening(deps);
  return n;
}
