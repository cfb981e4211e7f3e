/** One pass of the wallet-screening worker: monitored re-screens, ownership expiry, sandbox notifications. */
import type { Deps } from '../../deps';
import { deliverDueSandboxScreening } from '../../providers/sandbox-delivery.timers';
import { expireOwnershipRequests } from './ownership.service';
import { rescreenDueWallets } from './screening.service';

export async function runScreeningWorker(deps: Deps): Promise<number> {
  let n = 0;
  n += await rescreenDueWallets(deps, 20);
  n += await expireOwnershipRequests(deps, 50);
  // The sandbox provider's due notifications are timer jobs the jobs runner sends; the pass runs
  // them too, for its callers (tests).
  if (deps.providers.screening.sandbox) n += await deliverDueSandboxScreening(deps);
  return n;
}
