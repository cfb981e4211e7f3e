/** One pass of the wallet-screening worker: monitored re-screens, ownership expiry, sandbox notifications. */
import type { Deps } from '../../deps';
import { expireOwnershipRequests } from './ownership.service';
import { rescreenDueWallets } from './screening.service';

export async function runScreeningWorker(deps: Deps): Promise<number> {
  let n = 0;
  n += await rescreenDueWallets(deps, 20);
  n += await expireOwnershipRequests(deps, 50);
  const sandbox = deps.providers.screening.sandbox;
  if (sandbox) n += await sandbox.deliverDue(20);
  return n;
}
