/** The webhook delivery worker: a loop over the dispatcher; on stop it claims nothing more and finishes in-flight sends. */
import type { Deps } from '../deps';
import { createDeliveryDispatcher } from '../outbox/dispatcher';
import { loopWorker, type Worker } from './loop';

export function createWebhookDeliveryWorker(deps: Deps): Worker {
  const dispatcher = createDeliveryDispatcher(deps);
  // Idle, the dispatcher backs off to 1 s: a delivery enqueued then goes out within about a second.
  const loop = loopWorker('webhook-delivery', deps.config.webhookPollMs, () => dispatcher.tick(), deps.log, {
    idleMaxMs: Math.max(deps.config.webhookPollMs, 1000),
  });
  return {
    ...loop,
    async stop() {
      await loop.stop();
      await dispatcher.close();
    },
  };
}
