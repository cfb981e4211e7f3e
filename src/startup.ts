/** One-time tasks at start, after migrations (bootstrap staff account, ...). Idempotent: every node runs them. */
import type { Deps } from './deps';
import { ensureBootstrapStaff } from './modules/admin/staff.service';

export type StartupTask = (deps: Deps) => Promise<void>;

export const startupTasks: StartupTask[] = [ensureBootstrapStaff];

export async function runStartupTasks(deps: Deps): Promise<void> {
  for (const task of startupTasks) await task(deps);
}
