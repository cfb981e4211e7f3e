/**
 * Loading the official sanctions lists on a schedule, as rows of the jobs table (docs/platform.md,
 * "Jobs"): one `sanctions.load_list` job per list and time slot (SVC_SANCTIONS_<LIST>_REFRESH_MINUTES),
 * deduplicated on the slot, so any number of nodes schedule it and one of them runs it. Each run
 * first schedules the next slot, then loads; a failed load keeps the current version (recorded on the
 * list's state, shown in /readyz details and GET /admin/sanctions/status) and is retried with backoff.
 * At start every node schedules the current slot; a list loaded recently is not read again.
 */
import type { Deps } from '../../deps';
import { defineJob, enqueueJob, PermanentJobError } from '../../platform/jobs/index';
import { defineModule } from '../../platform/module';
import { SANCTIONS_LIST_IDS, type SanctionsListId } from './port';

const isListId = (v: unknown): v is SanctionsListId => SANCTIONS_LIST_IDS.some((id) => id === v);

function refreshMs(deps: Deps, list: SanctionsListId): number | null {
  const src = deps.config.sanctions.lists.find((l) => l.list === list);
  return src ? src.refreshMinutes * 60_000 : null;
}

export const loadSanctionsListJob = defineJob<{ list: string; slot: number }>({
  kind: 'sanctions.load_list',
  maxAttempts: 4,
  backoffSeconds: [60, 300, 900],
  async run(deps, payload) {
    const list = payload.list;
    if (!isListId(list)) throw new PermanentJobError(`unknown sanctions list ${String(list)}`);
    const every = refreshMs(deps, list);
    if (every === null) return; // no longer configured: the schedule ends here
    await scheduleSlot(deps, list, payload.slot + 1);
    // A node that restarts (or a second node) does not read a list again before half its interval.
    const [state] = await deps.providers.sanctions
      .status(deps)
      .then((all) => all.filter((s) => s.list === list));
    const last = state?.last_success_at ? Date.parse(state.last_success_at) : null;
    if (last !== null && state?.version && deps.clock.now().getTime() - last < every / 2) return;
    await deps.providers.sanctions.load(deps, list);
  },
});

async function scheduleSlot(deps: Deps, list: SanctionsListId, slot: number): Promise<void> {
  const every = refreshMs(deps, list);
  if (every === null) return;
  const runAt = new Date(Math.max(slot * every, deps.clock.now().getTime()));
  await enqueueJob(deps.db, deps.clock, loadSanctionsListJob, {
    payload: { list, slot },
    runAt,
    dedupeKey: `${list}:${slot}`,
  });
}

/** Every configured list's current slot (deduplicated across nodes and restarts). */
export async function scheduleSanctionsLoads(deps: Deps): Promise<void> {
  for (const l of deps.config.sanctions.lists)
    await scheduleSlot(deps, l.list, Math.floor(deps.clock.now().getTime() / (l.refreshMinutes * 60_000)));
}

export const sanctionsListsModule = defineModule({
  name: 'sanctions-lists',
  jobs: [loadSanctionsListJob],
  startup: [scheduleSanctionsLoads],
});
