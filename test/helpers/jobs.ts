/** Drives the jobs runner in tests: every due job of every feature, until none is left. */
import type { Deps } from '../../src/deps';
import { jobDefinitions } from '../../src/modules/index';
import { jobRegistry, runDueJobs } from '../../src/platform/jobs/index';

const registry = jobRegistry(jobDefinitions);

/** Runs due jobs until a tick finds none (jobs a run enqueues for now run too); returns how many ran. */
export async function runJobs(ctx: { deps: Deps }): Promise<number> {
  let total = 0;
  for (let i = 0; i < 100; i++) {
    const n = await runDueJobs(ctx.deps, registry);
    if (n === 0) return total;
    total += n;
  }
  throw new Error('jobs keep coming: a job re-enqueues itself for now');
}
