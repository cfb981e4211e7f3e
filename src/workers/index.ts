/** Every background worker of the service; server.ts starts them after listen and stops them on shutdown. */
import type { Deps } from '../deps';
import type { Worker } from './loop';

export function createWorkers(_deps: Deps): Worker[] {
  return [];
}
