/**
 * The screening pass (tests): the feature's due timers at once, on the injected clock. No loop runs
 * it any more: monitored re-screens, ownership expiry and the sandbox provider's notifications are
 * timers the jobs runner runs (docs/platform.md, "Timers").
 */
import type { Deps } from '../../deps';
import { deliverDueSandboxScreening } from '../../providers/sandbox-delivery.timers';
import { expireOwnershipRequests } from './ownership.service';
import { rescreenDueWallets } from './screening.service';

export async function runScreeningWorker(deps: Deps): Promise<number> {
  let n = 0;
  n += await rescreenDueWallets(deps);
  n += await expireOwnershipRequests(deps, 50);
  if (deps.providers.screening.sandbox) n += await deliverDueSandboxScreening(deps);
  return n;
}
