/** After a contract change commits: its jobs get their first attempt at once, workflow runs wake. */
import type { Deps } from '../../../deps';
import { runJobsNow } from '../../../platform/jobs/index';
import { contractJobs } from '../contracts.jobs';
import { type Effects, wakeWorkflowRuns } from './effects.service';

export async function runEffects(deps: Deps, fx: Effects): Promise<void> {
  await runJobsNow(deps, contractJobs, fx.jobIds);
  await wakeWorkflowRuns(deps, fx);
}
