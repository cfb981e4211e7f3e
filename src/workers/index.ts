/** Every background worker of the service; server.ts starts them after listen and stops them on shutdown. */
import type { Deps } from '../deps';
import { purgeExpiredAuthRows } from '../modules/auth/auth-cleanup';
import { loopWorker, type Worker } from './loop';

export function createWorkers(deps: Deps): Worker[] {
  return [loopWorker('auth-cleanup', 60_000, () => purgeExpiredAuthRows(deps), deps.log)];
}
