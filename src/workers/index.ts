/** Every background worker of the service; server.ts starts them after listen and stops them on shutdown. */
import type { Deps } from '../deps';
import type { Worker } from './loop';
import { createWebhookDeliveryWorker } from './webhook-delivery';

export function createWorkers(deps: Deps): Worker[] {
  return [createWebhookDeliveryWorker(deps)];
}
