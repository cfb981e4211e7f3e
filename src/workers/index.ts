/** Every background worker of the service; server.ts starts them after listen and stops them on shutdown. */
import type { Deps } from '../deps';
import { sweepApiKeyLockouts } from '../modules/auth/credentials.service';
import { loopWorker, type Worker } from './loop';

export function createWorkers(deps: Deps): Worker[] {
  return [
    // Stale API-key failure counters (one statement per minute; returns 0 so it never spins).
    loopWorker(
      'api-key-lockout-sweeper',
      60_000,
      async () => {
        await sweepApiKeyLockouts(deps);
        return 0;
      },
      deps.log,
    ),
  ];
}
