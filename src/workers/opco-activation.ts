/** The sandbox Sub-TPP approval simulator's loop: activates submitted opcos once their delay has passed. */
import type { Deps } from '../deps';
import { activateDueOpcos } from '../modules/opcos/opco-review.service';
import { loopWorker, type Worker } from './loop';

export function createOpcoActivationWorker(deps: Deps): Worker {
  return loopWorker('opco-activation', deps.config.workerPollMs, () => activateDueOpcos(deps), deps.log, {
    idleMaxMs: 10_000,
  });
}
