/** The sandbox Sub-TPP approval simulator's loop: activates submitted opcos once their delay has passed. */
import type { Deps } from '../../deps';
import { loopWorker, type Worker } from '../../workers/loop';
import { activateDueOpcos } from './opco-review.service';

export function createOpcoActivationWorker(deps: Deps): Worker {
  return loopWorker('opco-activation', deps.config.workerPollMs, () => activateDueOpcos(deps), deps.log, {
    idleMaxMs: 10_000,
  });
}
