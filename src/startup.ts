/**
 * One-time tasks at start, after migrations: the modules' `startup` tasks (the bootstrap staff
 * account, …). Idempotent: every node runs them.
 */
import type { Deps } from './deps';
import { modules } from './modules/index';
import { enqueueTimersBackfill } from './platform/jobs/index';

export async function runStartupTasks(deps: Deps): Promise<void> {
  for (const mod of modules) for (const task of mod.startup ?? []) await task(deps);
  // Rows whose due time the previous release set without a timer job get one (docs/platform.md, "Timers").
  await enqueueTimersBackfill(deps);
}
