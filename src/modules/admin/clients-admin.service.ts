/** Staff management of clients: list, switches (production access, link generation, active), visibility groups. */

import { and, count, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm';
import type { Environment } from '../../config';
import { clients } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { recordActivity } from '../activity/activity-writer.service';
import { containsPattern } from '../customers/customers.repo';
import { effectiveFeatures, type Feature } from '../features/features.service';

export const VISIBILITY_GROUPS = [
  'document_number',
  'sof_questionnaire',
  'poa',
  'aml_hits',
  'documents',
] as const;
export type VisibilityGroup = (typeof VISIBILITY_GROUPS)[number];

type ClientRow = typeof clients.$inferSelect;
type D = Pick<Deps, 'db' | 'clock'> & { config: { environment: Environment } };

export function toAdminClientView(c: ClientRow, environment: Environment) {
  return {
    client_id: c.id,
    company_name: c.companyName,
    email: c.email,
    status: c.status,
    is_active: c.isActive,
    production_access_enabled: c.productionAccessEnabled,
    payment_links_enabled: c.paymentLinksEnabled,
    kyc_links_enabled: c.kycLinksEnabled,
    visibility_groups: sortGroups(c.visibilityGroups as VisibilityGroup[]),
    features: effectiveFeatures(environment, c.features),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

function sortGroups(groups: Iterable<VisibilityGroup>): VisibilityGroup[] {
  const set = new Set(groups);
  return VISIBILITY_GROUPS.filter((g) => set.has(g));
}

export async function listClients(deps: Pick<Deps, 'db' | 'config'>, page: PageParams, q?: string) {
  const where: (SQL | undefined)[] = [];
  const text = q?.trim();
  if (text) {
    const p = containsPattern(text);
    where.push(
      or(ilike(clients.companyName, p), ilike(clients.email, p), sql`${clients.id}::text = ${text}`),
    );
  }
  const cond = where.length ? and(...where) : undefined;
  const [rows, totals] = await Promise.all([
    deps.db
      .select()
      .from(clients)
      .where(cond)
      .orderBy(desc(clients.createdAt), desc(clients.id))
      .limit(page.pageSize)
      .offset(page.offset),
    deps.db.select({ n: count() }).from(clients).where(cond),
  ]);
  return {
    clients: rows.map((c) => toAdminClientView(c, deps.config.environment)),
    pagination: paginationMeta(Number(totals[0]?.n ?? 0), page),
  };
}

export async function getClient(deps: Pick<Deps, 'db' | 'config'>, clientId: string) {
  const [row] = await deps.db.select().from(clients).where(eq(clients.id, clientId));
  if (!row) throw notFound(M.clientNotFound);
  return toAdminClientView(row, deps.config.environment);
}

export interface ClientSwitches {
  production_access_enabled?: boolean;
  payment_links_enabled?: boolean;
  kyc_links_enabled?: boolean;
  is_active?: boolean;
  /** Named-area switches; only the given ones change. */
  features?: Partial<Record<Feature, boolean>>;
}

export async function updateClientSwitches(deps: D, clientId: string, s: ClientSwitches) {
  const set: Partial<typeof clients.$inferInsert> = { updatedAt: deps.clock.now() };
  if (s.production_access_enabled !== undefined) set.productionAccessEnabled = s.production_access_enabled;
  if (s.payment_links_enabled !== undefined) set.paymentLinksEnabled = s.payment_links_enabled;
  if (s.kyc_links_enabled !== undefined) set.kycLinksEnabled = s.kyc_links_enabled;
  if (s.is_active !== undefined) set.isActive = s.is_active;
  // Merged in SQL so concurrent changes of different switches do not overwrite each other.
  const features =
    s.features && Object.keys(s.features).length > 0
      ? { features: sql`${clients.features} || ${JSON.stringify(s.features)}::jsonb` }
      : {};
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(clients)
      .set({ ...set, ...features })
      .where(eq(clients.id, clientId))
      .returning();
    if (!updated) throw notFound(M.clientNotFound);
    const { features: f, ...switches } = s;
    await recordActivity(tx, {
      clientId,
      action: 'client.switches_changed',
      at: deps.clock.now(),
      target: { type: 'client', id: clientId, label: updated.companyName },
      changes: Object.fromEntries(
        Object.entries({ ...switches, ...(f ? { features: f } : {}) }).map(([k, v]) => [
          k,
          { from: null, to: v },
        ]),
      ),
    });
    return updated;
  });
  return toAdminClientView(row, deps.config.environment);
}

/** Read-modify-write of a client's groups under a row lock, so concurrent grants do not lose updates. */
async function changeGroups(
  deps: D,
  clientId: string,
  change: (current: Set<VisibilityGroup>) => Set<VisibilityGroup>,
): Promise<{ groups: VisibilityGroup[] }> {
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ groups: clients.visibilityGroups })
      .from(clients)
      .where(eq(clients.id, clientId))
      .for('update');
    if (!row) throw notFound(M.clientNotFound);
    const next = sortGroups(change(new Set(row.groups as VisibilityGroup[])));
    await tx
      .update(clients)
      .set({ visibilityGroups: next, updatedAt: deps.clock.now() })
      .where(eq(clients.id, clientId));
    await recordActivity(tx, {
      clientId,
      action: 'client.visibility_groups_changed',
      at: deps.clock.now(),
      target: { type: 'client', id: clientId, label: null },
      changes: { visibility_groups: { from: row.groups, to: next } },
    });
    return { groups: next };
  });
}

export const setVisibilityGroups = (deps: D, clientId: string, groups: VisibilityGroup[]) =>
  changeGroups(deps, clientId, () => new Set(groups));

export const grantVisibilityGroups = (deps: D, clientId: string, groups: VisibilityGroup[]) =>
  changeGroups(deps, clientId, (cur) => new Set([...cur, ...groups]));

export const revokeVisibilityGroups = (deps: D, clientId: string, groups: VisibilityGroup[]) =>
  changeGroups(deps, clientId, (cur) => new Set([...cur].filter((g) => !groups.includes(g))));
