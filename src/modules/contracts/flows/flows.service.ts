/**
 * Contract flows (docs/guides/contracts.md): reusable signing setups modelled on Adobe
 * Sign's workflows. Draft flows are edited freely; activation checks the templates; active flows are
 * frozen; a flow with requests is archived, never deleted.
 */
import { and, count, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import {
  type ContractFlowPayment,
  type ContractFlowStatus,
  contractFlows,
  contractRequests,
} from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import type { ClientAuth } from '../../../plugins/auth';
import { badRequest, conflict, invalidField, notFound, ValidationError } from '../../../shared/errors';
import {
  containsPattern,
  normalizeSearchQuery,
  type PageParams,
  paginationMeta,
} from '../../../shared/pagination';
import { checkPaymentMoney } from '../../../shared/payment-money';
import { assertOwnedReference } from '../../../shared/references';
import { recordActivity } from '../../activity/activity-writer.service';
import { assertFeatureEnabled } from '../../features/features.service';
import { ContractMessages } from '../contracts.messages';
import { markTemplatesUsed, requireTemplate } from '../templates/templates.service';
import { mergeRoles } from '../templates/validate.service';
import { flowMachine, isDraftFlow } from './flows.machine';
import type { FlowInput } from './flows.schemas';

export type FlowRow = typeof contractFlows.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'config'>;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toFlowView(f: FlowRow) {
  return {
    flow_id: f.id,
    name: f.name,
    description: f.description,
    status: f.status,
    template_ids: f.templateIds,
    expires_in_days: f.expiresInDays,
    reminder_interval_days: f.reminderIntervalDays,
    delivery: f.delivery,
    cc_recipients: f.ccRecipients.map((c) => ({ email: c.email, name: c.name, when: c.when })),
    payment: f.payment,
    activated_at: iso(f.activatedAt),
    archived_at: iso(f.archivedAt),
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

const target = (f: FlowRow) => ({ type: 'contract_flow', id: f.id, label: f.name });

export async function requireFlow(db: DbOrTx, clientId: string, id: string, lock = false) {
  const q = db
    .select()
    .from(contractFlows)
    .where(and(eq(contractFlows.clientId, clientId), eq(contractFlows.id, id)));
  const [f] = lock ? await q.for('update') : await q;
  if (!f) throw notFound(ContractMessages.flowNotFound);
  return f;
}

/**
 * Templates and the payment's project exist (404), roles merge without kind conflicts, payer_role
 * names a role, the amount is a valid decimal.
 */
async function checkFlow(deps: D, clientId: string, input: FlowInput) {
  const ids = [...new Set(input.template_ids)];
  const roleSets = [];
  for (const id of ids) roleSets.push((await requireTemplate(deps.db, clientId, id)).roles);
  const roles = mergeRoles(roleSets, ['body', 'template_ids']);
  let payment: ContractFlowPayment | null = null;
  if (input.payment) {
    const p = input.payment;
    if (!roles.some((r) => r.role === p.payer_role))
      throw invalidField(['body', 'payment', 'payer_role'], ContractMessages.payerRoleUnknown);
    // The payment's money, checked as any payment's (the amount may come at send instead).
    const money = checkPaymentMoney(deps.config, p, {
      amount: ['body', 'payment', 'amount'],
      currency: ['body', 'payment', 'currency'],
    });
    if (money.issues.length > 0) throw new ValidationError(money.issues);
    await assertOwnedReference(deps.db, clientId, 'project', p.project_id);
    payment = {
      amount: money.amount,
      currency: p.currency,
      project_id: p.project_id,
      description: p.description ?? null,
      payer_role: p.payer_role,
    };
  }
  return {
    templateIds: ids,
    expiresInDays: input.expires_in_days ?? 30,
    reminderIntervalDays: input.reminder_interval_days ?? null,
    delivery: input.delivery ?? 'email',
    ccRecipients: (input.cc_recipients ?? []).map((c) => ({
      email: c.email,
      name: c.name ?? null,
      when: c.when ?? 'on_completion',
    })),
    payment,
  };
}

export async function createFlow(deps: D, auth: ClientAuth, input: FlowInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const v = await checkFlow(deps, auth.clientId, input);
  const now = deps.clock.now();
  const f = await deps.db.transaction(async (tx) => {
    const [f] = await tx
      .insert(contractFlows)
      .values({
        clientId: auth.clientId,
        name: input.name,
        description: input.description ?? null,
        status: 'draft',
        ...v,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await markTemplatesUsed(tx, v.templateIds, now);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_flow.created',
      at: now,
      target: target(f!),
    });
    return f!;
  });
  return toFlowView(f);
}

export async function listFlows(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  f: { status?: ContractFlowStatus; q?: string; include_archived: boolean },
) {
  const where: SQL[] = [eq(contractFlows.clientId, clientId)];
  if (f.status) where.push(eq(contractFlows.status, f.status));
  if (!f.include_archived) where.push(isNull(contractFlows.archivedAt));
  const q = normalizeSearchQuery(f.q);
  if (q) where.push(sql`${contractFlows.name} ilike ${containsPattern(q)}`);
  const cond = and(...where);
  const [rows, totals] = await Promise.all([
    deps.db
      .select()
      .from(contractFlows)
      .where(cond)
      .orderBy(desc(contractFlows.createdAt), desc(contractFlows.id))
      .limit(page.pageSize)
      .offset(page.offset),
    deps.db.select({ n: count() }).from(contractFlows).where(cond),
  ]);
  return { flows: rows.map(toFlowView), pagination: paginationMeta(Number(totals[0]?.n ?? 0), page) };
}

export async function getFlow(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  return toFlowView(await requireFlow(deps.db, clientId, id));
}

export async function patchFlow(deps: D, auth: ClientAuth, id: string, input: Partial<FlowInput>) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const cur = await requireFlow(deps.db, auth.clientId, id);
  if (!isDraftFlow(cur.status)) throw badRequest(ContractMessages.flowActiveNoEdit);
  const merged: FlowInput = {
    name: input.name ?? cur.name,
    description: input.description ?? cur.description ?? undefined,
    template_ids: input.template_ids ?? cur.templateIds,
    expires_in_days: input.expires_in_days ?? cur.expiresInDays,
    reminder_interval_days:
      input.reminder_interval_days !== undefined ? input.reminder_interval_days : cur.reminderIntervalDays,
    delivery: input.delivery ?? (cur.delivery as 'email'),
    cc_recipients:
      input.cc_recipients ??
      cur.ccRecipients.map((c) => ({ email: c.email, ...(c.name ? { name: c.name } : {}), when: c.when })),
    payment:
      input.payment !== undefined
        ? (input.payment ?? undefined)
        : cur.payment
          ? {
              ...cur.payment,
              amount: cur.payment.amount ?? undefined,
              description: cur.payment.description ?? undefined,
            }
          : undefined,
  };
  const v = await checkFlow(deps, auth.clientId, merged);
  const now = deps.clock.now();
  const f = await deps.db.transaction(async (tx) => {
    const locked = await requireFlow(tx, auth.clientId, id, true);
    if (!isDraftFlow(locked.status)) throw badRequest(ContractMessages.flowActiveNoEdit);
    const [f] = await tx
      .update(contractFlows)
      .set({ name: merged.name, description: merged.description ?? null, ...v, updatedAt: now })
      .where(eq(contractFlows.id, id))
      .returning();
    await markTemplatesUsed(tx, v.templateIds, now);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_flow.updated',
      at: now,
      target: target(f!),
      metadata: { fields_changed: Object.keys(input) },
    });
    return f!;
  });
  return toFlowView(f);
}

export async function deleteFlow(deps: D, auth: ClientAuth, id: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const f = await requireFlow(tx, auth.clientId, id, true);
    if (!isDraftFlow(f.status)) throw badRequest(ContractMessages.onlyDraftFlowDelete);
    const [used] = await tx
      .select({ n: count() })
      .from(contractRequests)
      .where(eq(contractRequests.flowId, id));
    if (Number(used?.n ?? 0) > 0) throw conflict(ContractMessages.flowHasRequests);
    await tx.delete(contractFlows).where(eq(contractFlows.id, id));
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_flow.deleted',
      at: now,
      target: target(f),
    });
  });
}

export async function activateFlow(deps: D, auth: ClientAuth, id: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const now = deps.clock.now();
  const f = await deps.db.transaction(async (tx) => {
    const f = await requireFlow(tx, auth.clientId, id, true);
    if (f.archivedAt) throw badRequest(ContractMessages.flowArchived);
    if (!flowMachine.can('activate', f.status)) return f;
    for (const t of f.templateIds)
      if ((await requireTemplate(tx, auth.clientId, t)).archivedAt)
        throw badRequest(ContractMessages.templateArchived);
    const [u] = await tx
      .update(contractFlows)
      .set({ status: 'active', activatedAt: now, updatedAt: now })
      .where(eq(contractFlows.id, id))
      .returning();
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_flow.activated',
      at: now,
      target: target(u!),
      changes: { status: { from: 'draft', to: 'active' } },
    });
    return u!;
  });
  return toFlowView(f);
}

export async function setFlowArchived(deps: D, auth: ClientAuth, id: string, archived: boolean) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const now = deps.clock.now();
  const f = await deps.db.transaction(async (tx) => {
    const f = await requireFlow(tx, auth.clientId, id, true);
    if (Boolean(f.archivedAt) === archived) return f;
    const [u] = await tx
      .update(contractFlows)
      .set({ archivedAt: archived ? now : null, updatedAt: now })
      .where(eq(contractFlows.id, id))
      .returning();
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: archived ? 'contract_flow.archived' : 'contract_flow.unarchived',
      at: now,
      target: target(u!),
    });
    return u!;
  });
  return toFlowView(f);
}
