/** Drives the jobs runner in tests (instead of its timer). */
import type { Deps } from '../../src/deps';
import { jobDefinitions } from '../../src/modules/index';
import { type JobDefinition, jobRegistry, runDueJobs } from '../../src/platform/jobs/index';

const everyKind = jobRegistry(jobDefinitions);

/**
 * Runs due jobs until a tick finds none (jobs a run enqueues for now run too); returns how many ran.
 * With definitions, only jobs of those kinds run (a test counting one feature's emails).
 */
export async function runJobs(ctx: { deps: Deps }, ...only: JobDefinition<never>[]): Promise<number> {
  const defs = only.length > 0 ? jobRegistry(only) : everyKind;
  let total = 0;
  for (let i = 0; i < 100; i++) {
    const n = await runDueJobs(ctx.deps, defs, { onlyDefinedKinds: only.length > 0 });
    if (n === 0) return total;
    total += n;
  }
  throw new Error('jobs keep coming: a job re-enqueues itself for now');
}
