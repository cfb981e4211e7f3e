/**
 * Bulk payment links (docs/guides/bulk-links.md): creating a job from JSON rows or a CSV/XLSX file,
 * reading jobs and rows, confirm, retry with rows_patch, cancel. Links are made by the worker
 * (bulk.worker.ts); everything here is database work plus validation.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { bulkPaymentJobs, bulkPaymentRows } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { runIdempotent } from '../../platform/idempotency';
import type { ClientAuth } from '../../plugins/auth';
import { addSeconds } from '../../shared/clock';
import { badRequest, forbidden, notFound, ValidationError, type ValidationIssue } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { assertOwnedReference } from '../../shared/references';
import { recordActivity } from '../activity/activity-writer.service';
import type { PaylinkBodyCheck } from '../payments/paylink-validation.policy';
import {
  assertJobTransition,
  initialJobStatus,
  isRetryableRow,
  type JobStatus,
  ROW_TRANSITIONS,
  type RowStatus,
} from './bulk.machine';
import { BulkLinkMessages } from './bulk.messages';
import { allRows, countRows, findJob, type JobRow, listJobs, listRows, moveRows } from './bulk.repo';
import { emitJobStatus, moveJob } from './bulk.transitions';
import { type JobDto, toJobDto, toRowDto } from './bulk.view';
import { cancelCreatedLinks } from './bulk.worker';
import {
  columnsOf,
  isKnownColumn,
  type JobDefaults,
  jsonRowInput,
  MAX_ROWS,
  type RowInput,
} from './bulk-columns.schemas';
import { parseBulkFile, tooManyRows } from './bulk-parse.service';
import { type RowVerdict, validateRows } from './bulk-validate.service';

export interface BulkCreateBody {
  rows?: Record<string, unknown>[];
  file?: { file_name: string; content_base64: string };
  defaults?: JobDefaults;
  create_missing_users?: boolean;
  preview?: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

async function jobDto(deps: Pick<Deps, 'db'>, job: JobRow): Promise<JobDto> {
  return toJobDto(job, (await countRows(deps.db, [job.id])).get(job.id)!);
}

async function requireJob(deps: Pick<Deps, 'db'>, clientId: string, id: string): Promise<JobRow> {
  const job = await findJob(deps.db, clientId, id);
  if (!job) throw notFound(BulkLinkMessages.jobNotFound);
  return job;
}

/** Client-level paylink rules that refuse the whole request (the rest are checked per row). */
async function assertClientMayCreateLinks(deps: Pick<Deps, 'db'>, clientId: string): Promise<void> {
  const res = await deps.db.execute(
    sql`select payment_links_enabled, callback_url from clients where id = ${clientId}::uuid`,
  );
  const c = rowsOf<{ payment_links_enabled: boolean; callback_url: string | null }>(res)[0];
  if (!c) throw notFound(M.notFound);
  if (!c.payment_links_enabled) throw forbidden(M.paymentLinksDisabled);
  if (!c.callback_url) throw badRequest(M.callbackUrlNotSet);
}

interface Source {
  source: 'json' | 'csv' | 'xlsx';
  fileName: string | null;
  columns: string[];
  rows: RowInput[];
  warnings: string[];
}

async function readSource(deps: Pick<Deps, 'config'>, body: BulkCreateBody): Promise<Source> {
  if ((body.rows === undefined) === (body.file === undefined))
    throw new ValidationError([{ loc: ['body'], msg: BulkLinkMessages.rowsOrFile, type: 'value_error' }]);
  if (body.rows) {
    if (body.rows.length > MAX_ROWS) throw tooManyRows(['body', 'rows']);
    if (body.rows.length === 0)
      throw new ValidationError([
        { loc: ['body', 'rows'], msg: BulkLinkMessages.noRows, type: 'value_error' },
      ]);
    const unknown = new Set<string>();
    const rows = body.rows.map((r) => jsonRowInput(r, unknown));
    return {
      source: 'json',
      fileName: null,
      columns: columnsOf(rows).filter((c) => rows.some((r) => c in r)),
      rows,
      warnings: [...unknown].map(BulkLinkMessages.unknownColumn),
    };
  }
  const file = body.file!;
  if (!/\.(csv|xlsx)$/i.test(file.file_name))
    throw new ValidationError([
      { loc: ['body', 'file', 'file_name'], msg: BulkLinkMessages.fileType, type: 'value_error' },
    ]);
  const b64 = file.content_base64.replace(/\s+/g, '');
  if (!BASE64.test(b64) || b64.length % 4 === 1)
    throw new ValidationError([
      { loc: ['body', 'file', 'content_base64'], msg: BulkLinkMessages.notBase64, type: 'value_error' },
    ]);
  const max = deps.config.bulkPaylinkMaxFileBytes;
  if (Math.floor((b64.length * 3) / 4) - (b64.match(/=+$/)?.[0].length ?? 0) > max)
    throw new ValidationError([
      { loc: ['body', 'file'], msg: BulkLinkMessages.fileTooLarge(max), type: 'value_error' },
    ]);
  const parsed = await parseBulkFile(Buffer.from(b64, 'base64'));
  if (parsed.rows.length === 0)
    throw new ValidationError([{ loc: ['body', 'file'], msg: BulkLinkMessages.noRows, type: 'value_error' }]);
  return { ...parsed, fileName: file.file_name };
}

/** POST /checkout/paylink/bulk ((idem, required)): 201 previewed or 202 queued. */
export async function createBulkJob(
  deps: Deps,
  auth: ClientAuth,
  header: string | string[] | undefined,
  body: BulkCreateBody,
  check: PaylinkBodyCheck,
) {
  return runIdempotent(
    deps,
    { clientId: auth.clientId, scope: 'paylink.bulk.create', header, required: true, payload: body },
    async (commit) => {
      await assertClientMayCreateLinks(deps, auth.clientId);
      const src = await readSource(deps, body);
      const defaults = body.defaults ?? {};
      // A row's own ids are row errors; the job-wide default is the request's, so it refuses the request.
      if (defaults.project_id)
        await assertOwnedReference(deps.db, auth.clientId, 'project', defaults.project_id);
      const createMissingUsers = body.create_missing_users ?? false;
      const preview = body.preview ?? false;
      const verdicts = await validateRows(
        { deps, clientId: auth.clientId, defaults, createMissingUsers, check },
        src.rows.map((input, i) => ({ rowNumber: i + 1, input })),
      );
      const now = deps.clock.now();
      const id = newId();
      const status = initialJobStatus(preview);
      const dto = await deps.db.transaction(async (tx) => {
        const [job] = await tx
          .insert(bulkPaymentJobs)
          .values({
            id,
            clientId: auth.clientId,
            status,
            source: src.source,
            fileName: src.fileName,
            defaults: defaults as Record<string, unknown>,
            createMissingUsers,
            warnings: src.warnings,
            columns: src.columns,
            createdByAccountId: auth.accountId,
            previewExpiresAt: preview ? addSeconds(now, deps.config.bulkPreviewTtlHours * 3600) : null,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        // Without preview, valid rows go straight to pending (row table: valid -> pending).
        const rowStatus = (v: RowVerdict): RowStatus =>
          v.status === 'invalid' ? 'invalid' : preview ? 'valid' : 'pending';
        await tx.insert(bulkPaymentRows).values(
          verdicts.map((v, i) => ({
            bulkId: id,
            clientId: auth.clientId,
            rowNumber: v.rowNumber,
            reference: v.reference,
            status: rowStatus(v),
            input: src.rows[i]!,
            errors: v.errors,
            payerUserId: v.payerUserId,
            body: v.body,
            updatedAt: now,
          })),
        );
        const counts = (await countRows(tx, [id])).get(id)!;
        await emitJobStatus(tx, job!, null, counts, now);
        await recordActivity(tx, {
          clientId: auth.clientId,
          action: 'bulk_job.created',
          at: now,
          target: { type: 'bulk_job', id, label: src.fileName ?? `${counts.total} rows` },
          metadata: { source: src.source, preview, ...counts },
        });
        const out = toJobDto(job!, counts);
        await commit(tx, out, preview ? 201 : 202);
        return out;
      });
      return { body: dto, status: preview ? 201 : 202 };
    },
  );
}

export async function getBulkJob(deps: Pick<Deps, 'db'>, clientId: string, id: string): Promise<JobDto> {
  return jobDto(deps, await requireJob(deps, clientId, id));
}

export async function listBulkJobs(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  status: JobStatus | undefined,
  page: PageParams,
) {
  const { rows, total } = await listJobs(deps.db, clientId, status, page);
  const counts = await countRows(
    deps.db,
    rows.map((r) => r.id),
  );
  return {
    bulk_jobs: rows.map((r) => toJobDto(r, counts.get(r.id)!)),
    pagination: paginationMeta(total, page),
  };
}

export async function listBulkRows(
  deps: Pick<Deps, 'db' | 'config'>,
  clientId: string,
  id: string,
  status: RowStatus | undefined,
  page: PageParams,
) {
  await requireJob(deps, clientId, id);
  const { rows, total } = await listRows(deps.db, clientId, id, status ? [status] : undefined, page);
  return { rows: rows.map((r) => toRowDto(deps, r)), pagination: paginationMeta(total, page) };
}

/** POST …/confirm: previewed -> queued (valid rows -> pending); a lapsed preview expires instead. */
export async function confirmBulkJob(deps: Deps, auth: ClientAuth, id: string): Promise<JobDto> {
  const job = await requireJob(deps, auth.clientId, id);
  assertJobTransition('confirm', job.status);
  const now = deps.clock.now();
  const lapsed = job.previewExpiresAt !== null && job.previewExpiresAt <= now;
  const moved = await deps.db.transaction((tx) =>
    lapsed
      ? moveJob(tx, job, 'expire_preview', now)
      : moveJob(tx, job, 'confirm', now, {
          beforeEvent: async (j) => {
            await moveRows(tx, j.id, ['valid'], 'pending', now);
          },
        }),
  );
  if (!moved) {
    // Someone else moved it first (a concurrent confirm or cancel): answer for the status it has now.
    const current = await requireJob(deps, auth.clientId, id);
    throw badRequest(BulkLinkMessages.actionNotAllowed(current.status));
  }
  if (lapsed) throw badRequest(BulkLinkMessages.actionNotAllowed('expired'));
  return jobDto(deps, moved);
}

export interface RetryBody {
  row_numbers?: number[];
  rows_patch?: ({ row_number: number } & Record<string, unknown>)[];
}

/** POST …/retry: patch failed/invalid rows, revalidate, failed + fixed rows -> pending, job -> processing. */
export async function retryBulkJob(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  body: RetryBody,
  check: PaylinkBodyCheck,
): Promise<JobDto> {
  const job = await requireJob(deps, auth.clientId, id);
  assertJobTransition('retry', job.status);
  const rows = await allRows(deps.db, id);
  const byNumber = new Map(rows.map((r) => [r.rowNumber, r]));
  const issues: ValidationIssue[] = [];
  const requireRetryable = (n: number, loc: (string | number)[]) => {
    const r = byNumber.get(n);
    if (!r) issues.push({ loc, msg: BulkLinkMessages.rowNotFound(n), type: 'value_error' });
    else if (!isRetryableRow(r.status))
      issues.push({ loc, msg: BulkLinkMessages.rowNotRetryable(n, r.status), type: 'value_error' });
  };
  (body.row_numbers ?? []).forEach((n, i) => {
    requireRetryable(n, ['body', 'row_numbers', i]);
  });
  const patched = new Map<number, RowInput>();
  (body.rows_patch ?? []).forEach((p, i) => {
    requireRetryable(p.row_number, ['body', 'rows_patch', i, 'row_number']);
    const current = byNumber.get(p.row_number);
    const input: RowInput = { ...(patched.get(p.row_number) ?? current?.input ?? {}) };
    for (const [k, v] of Object.entries(p)) {
      if (k === 'row_number') continue;
      if (!isKnownColumn(k)) {
        issues.push({
          loc: ['body', 'rows_patch', i, k],
          msg: BulkLinkMessages.unknownPatchField,
          type: 'value_error',
        });
        continue;
      }
      if (v === null) delete input[k];
      else input[k] = v;
    }
    patched.set(p.row_number, input);
  });
  if (issues.length > 0) throw new ValidationError(issues);

  // Revalidate patched rows and the invalid rows named in row_numbers (fixed elsewhere, e.g. a user created).
  const named = new Set(body.row_numbers ?? []);
  const revalidate = rows.filter(
    (r) => patched.has(r.rowNumber) || (named.has(r.rowNumber) && r.status === 'invalid'),
  );
  const inputOf = (n: number) => patched.get(n) ?? byNumber.get(n)!.input;
  const revalidated = new Set(revalidate.map((r) => r.rowNumber));
  const taken = new Map<string, number>();
  for (const r of rows) {
    const ref = inputOf(r.rowNumber).reference;
    if (typeof ref === 'string' && !revalidated.has(r.rowNumber) && !taken.has(ref))
      taken.set(ref, r.rowNumber);
  }
  const verdicts = await validateRows(
    {
      deps,
      clientId: auth.clientId,
      defaults: job.defaults as JobDefaults,
      createMissingUsers: job.createMissingUsers,
      check,
      takenReferences: taken,
    },
    revalidate.map((r) => ({ rowNumber: r.rowNumber, input: inputOf(r.rowNumber) })),
  );
  const verdictOf = new Map(verdicts.map((v) => [v.rowNumber, v]));
  // Default selection: every failed row and every invalid row the patch made valid.
  const selected = body.row_numbers
    ? rows.filter((r) => named.has(r.rowNumber))
    : rows.filter((r) => r.status === 'failed' || (r.status === 'invalid' && patched.has(r.rowNumber)));
  for (const r of rows)
    if (patched.has(r.rowNumber) && verdictOf.get(r.rowNumber)?.status === 'valid') selected.push(r);

  const now = deps.clock.now();
  const moved = await deps.db.transaction((tx) =>
    moveJob(tx, job, 'retry', now, {
      metadata: {
        retried_rows: [...new Set(selected.map((r) => r.rowNumber))],
        patched_rows: [...patched.keys()],
      },
      beforeEvent: async () => {
        const toPending = new Set<number>();
        for (const r of selected) {
          const v = verdictOf.get(r.rowNumber);
          if (!v || v.status === 'valid') toPending.add(r.rowNumber);
        }
        for (const r of rows) {
          const v = verdictOf.get(r.rowNumber);
          const goes = toPending.has(r.rowNumber);
          if (!v && !goes) continue;
          await tx
            .update(bulkPaymentRows)
            .set({
              input: inputOf(r.rowNumber),
              reference: v ? v.reference : r.reference,
              errors: goes ? [] : v!.errors,
              payerUserId: v ? v.payerUserId : r.payerUserId,
              body: v ? v.body : r.body,
              status: goes ? 'pending' : r.status,
              leaseUntil: null,
              updatedAt: now,
            })
            .where(
              sql`${bulkPaymentRows.bulkId} = ${id}::uuid and ${bulkPaymentRows.rowNumber} = ${r.rowNumber}
                  and ${bulkPaymentRows.status} = ${r.status}`,
            );
        }
      },
    }),
  );
  if (!moved) {
    const current = await requireJob(deps, auth.clientId, id);
    throw badRequest(BulkLinkMessages.actionNotAllowed(current.status));
  }
  return jobDto(deps, moved);
}

/**
 * POST …/cancel: previewed/queued/processing -> canceled; in the same transaction every row without
 * a link (valid, invalid, pending, failed) -> canceled; optionally the created links' intents too.
 */
export async function cancelBulkJob(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  cancelLinks: boolean,
): Promise<JobDto> {
  const job = await requireJob(deps, auth.clientId, id);
  assertJobTransition('cancel', job.status);
  const now = deps.clock.now();
  const moved = await deps.db.transaction((tx) =>
    moveJob(tx, job, 'cancel', now, {
      set: { cancelCreatedLinks: cancelLinks, cancelLinksDueAt: cancelLinks ? now : null },
      metadata: { cancel_created_links: cancelLinks },
      beforeEvent: async (j) => {
        await moveRows(tx, j.id, ROW_TRANSITIONS.cancel.from, 'canceled', now);
      },
    }),
  );
  if (!moved) {
    const current = await requireJob(deps, auth.clientId, id);
    throw badRequest(BulkLinkMessages.actionNotAllowed(current.status));
  }
  // The intents are canceled after the commit (each through the intent-cancel rules); the worker
  // finishes the job if this process stops first.
  if (cancelLinks)
    await cancelCreatedLinks(deps, moved.id, auth).catch((err) => {
      deps.log.warn(
        { err, bulkId: moved.id },
        'canceling the links of a bulk job failed; the worker retries',
      );
    });
  return jobDto(deps, (await findJob(deps.db, auth.clientId, id)) ?? moved);
}
