/** Every background worker of the service; server.ts starts them after listen and stops them on shutdown. */
import type { Deps } from '../deps';
import { expireDuePayments } from '../modules/payments/payments.service';
import { loopWorker, type Worker } from './loop';

export function createWorkers(deps: Deps): Worker[] {
  return [
    // Pending payment links past expires_at become expired (claimed with FOR UPDATE SKIP LOCKED, in batches).
    loopWorker(
      'payment-expiry-sweeper',
      Math.max(deps.config.workerPollMs, 1000),
      () => expireDuePayments(deps, 100),
      deps.log,
    ),
  ];
}
