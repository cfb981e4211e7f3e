/**
 * Contract templates (docs/guides/contracts.md): create, list, read, edit (version + 1), delete
 * while unused, archive/unarchive, and the document download. Every write commits with its
 * activity entry.
 */
import { and, count, desc, eq, gte, isNull, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { contractTemplates } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import type { ClientAuth } from '../../../plugins/auth';
import { conflict, notFound } from '../../../shared/errors';
import {
  containsPattern,
  normalizeSearchQuery,
  type PageParams,
  paginationMeta,
} from '../../../shared/pagination';
import { recordActivity } from '../../activity/activity-writer.service';
import { assertFeatureEnabled } from '../../features/features.service';
import { ContractMessages } from '../contracts.messages';
import type { CreateTemplateInput, PatchTemplateInput } from '../contracts.schemas';
import { checkDocument, checkRolesAndFields, type FieldInput, type RoleInput } from './validate.service';

export type TemplateRow = typeof contractTemplates.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'config'>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toTemplateView(t: TemplateRow) {
  return {
    template_id: t.id,
    name: t.name,
    description: t.description,
    document: {
      file_name: t.fileName,
      content_type: 'application/pdf',
      size: t.size,
      sha256: t.sha256,
      page_count: t.pageCount,
    },
    roles: t.roles,
    fields: t.fields,
    version: t.version,
    is_ad_hoc: t.isAdHoc,
    archived_at: iso(t.archivedAt),
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

const target = (t: TemplateRow) => ({ type: 'contract_template', id: t.id, label: t.name });

export async function findTemplate(db: DbOrTx, clientId: string, id: string, lock = false) {
  const q = db
    .select()
    .from(contractTemplates)
    .where(and(eq(contractTemplates.clientId, clientId), eq(contractTemplates.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function requireTemplate(db: DbOrTx, clientId: string, id: string, lock = false) {
  const t = await findTemplate(db, clientId, id, lock);
  if (!t) throw notFound(ContractMessages.templateNotFound);
  return t;
}

/** Checks and stores a template (also used by /contracts/send for ad hoc documents, inside its tx). */
export async function buildTemplateValues(
  deps: D,
  input: {
    document: { file_name: string; content_base64: string };
    roles: RoleInput[];
    fields: FieldInput[];
  },
  base: (string | number)[],
  docBase: (string | number)[],
) {
  const doc = await checkDocument(input.document, docBase, deps.config.contractMaxDocumentBytes);
  const rf = checkRolesAndFields(input.roles, input.fields, doc.pageCount, base);
  return {
    fileName: doc.fileName,
    size: doc.size,
    sha256: doc.sha256,
    pageCount: doc.pageCount,
    content: doc.content,
    roles: rf.roles,
    fields: rf.fields,
  };
}

export async function createTemplate(deps: D, auth: ClientAuth, input: CreateTemplateInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const values = await buildTemplateValues(deps, input, ['body'], ['body', 'document']);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const [t] = await tx
      .insert(contractTemplates)
      .values({
        clientId: auth.clientId,
        name: input.name,
        description: input.description ?? null,
        ...values,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_template.created',
      at: now,
      target: target(t!),
    });
    return t!;
  });
  return toTemplateView(row);
}

export async function listTemplates(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  f: { q?: string; updated_from?: string; include_ad_hoc: boolean; include_archived: boolean },
) {
  const where: SQL[] = [eq(contractTemplates.clientId, clientId)];
  if (!f.include_ad_hoc) where.push(eq(contractTemplates.isAdHoc, false));
  if (!f.include_archived) where.push(isNull(contractTemplates.archivedAt));
  if (f.updated_from) where.push(gte(contractTemplates.updatedAt, new Date(f.updated_from)));
  const q = normalizeSearchQuery(f.q);
  if (q) {
    const p = containsPattern(q);
    where.push(
      sql`(${contractTemplates.name} ilike ${p} or coalesce(${contractTemplates.description}, '') ilike ${p})`,
    );
  }
  const cond = and(...where);
  const [rows, totals] = await Promise.all([
    deps.db
      .select()
      .from(contractTemplates)
      .where(cond)
      .orderBy(desc(contractTemplates.createdAt), desc(contractTemplates.id))
      .limit(page.pageSize)
      .offset(page.offset),
    deps.db.select({ n: count() }).from(contractTemplates).where(cond),
  ]);
  return { templates: rows.map(toTemplateView), pagination: paginationMeta(Number(totals[0]?.n ?? 0), page) };
}

export async function getTemplate(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  return toTemplateView(await requireTemplate(deps.db, clientId, id));
}

export async function templateDocument(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const t = await requireTemplate(deps.db, clientId, id);
  return { fileName: t.fileName, content: t.content };
}

export async function patchTemplate(deps: D, auth: ClientAuth, id: string, input: PatchTemplateInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const current = await requireTemplate(deps.db, auth.clientId, id);
  let doc: Awaited<ReturnType<typeof buildTemplateValues>> | null = null;
  if (input.document || input.roles || input.fields) {
    // The document, roles and fields are checked together: a new PDF may have fewer pages.
    const docValues = input.document
      ? input.document
      : { file_name: current.fileName, content_base64: current.content.toString('base64') };
    doc = await buildTemplateValues(
      deps,
      { document: docValues, roles: input.roles ?? current.roles, fields: input.fields ?? current.fields },
      ['body'],
      ['body', 'document'],
    );
  }
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const t = await requireTemplate(tx, auth.clientId, id, true);
    const [u] = await tx
      .update(contractTemplates)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(doc ?? {}),
        version: t.version + 1,
        updatedAt: now,
      })
      .where(eq(contractTemplates.id, t.id))
      .returning();
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_template.updated',
      at: now,
      target: target(u!),
      changes: { version: { from: t.version, to: u!.version } },
      metadata: { fields_changed: Object.keys(input) },
    });
    return u!;
  });
  return toTemplateView(row);
}

export async function deleteTemplate(deps: D, auth: ClientAuth, id: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const t = await requireTemplate(tx, auth.clientId, id, true);
    if (t.usedAt) throw conflict(ContractMessages.templateInUse);
    await tx.delete(contractTemplates).where(eq(contractTemplates.id, t.id));
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_template.deleted',
      at: now,
      target: target(t),
    });
  });
}

export async function setTemplateArchived(deps: D, auth: ClientAuth, id: string, archived: boolean) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const t = await requireTemplate(tx, auth.clientId, id, true);
    if (Boolean(t.archivedAt) === archived) return t;
    const [u] = await tx
      .update(contractTemplates)
      .set({ archivedAt: archived ? now : null, updatedAt: now })
      .where(eq(contractTemplates.id, t.id))
      .returning();
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: archived ? 'contract_template.archived' : 'contract_template.unarchived',
      at: now,
      target: target(u!),
    });
    return u!;
  });
  return toTemplateView(row);
}

/** Marks templates as used (DELETE becomes 409), in the using transaction. */
export async function markTemplatesUsed(tx: DbOrTx, ids: string[], now: Date) {
  for (const id of ids)
    await tx
      .update(contractTemplates)
      .set({ usedAt: now })
      .where(and(eq(contractTemplates.id, id), isNull(contractTemplates.usedAt)));
}
