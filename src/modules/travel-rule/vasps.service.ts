/** GET /travel-rule/vasps: the network's directory, filtered by `q` (name, LEI) and paged. */
import type { Deps } from '../../deps';
import { normalizeSearchQuery, type PageParams, paginationMeta } from '../../shared/pagination';
import { assertNetworkConfigured } from './transfers.service';

export async function listVasps(deps: Pick<Deps, 'providers'>, p: PageParams, q: string | undefined) {
  assertNetworkConfigured(deps);
  const needle = normalizeSearchQuery(q)?.toLowerCase();
  const all = (await deps.providers.travelRule.directory()).filter(
    (v) => !needle || v.name.toLowerCase().includes(needle) || (v.lei ?? '').toLowerCase().includes(needle),
  );
  return { vasps: all.slice(p.offset, p.offset + p.pageSize), pagination: paginationMeta(all.length, p) };
}
