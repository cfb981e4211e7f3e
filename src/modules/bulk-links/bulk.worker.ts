/**
 * The bulk worker (one tick = every step once): expire lapsed previews, claim queued jobs, create the
 * links of a batch of pending rows, finish drained jobs, cancel created links of canceled jobs.
 *
 * Rows are leased with FOR UPDATE SKIP LOCKED (lease = SVC_IDEMPOTENCY_STALE_SECONDS, so a crashed
 * worker's half-made link claim is stale when its rows are taken again). Links are created outside
 * any database transaction through the paylink use case with the key `bulk:<bulk_id>:<row_number>`:
 * a retry or a crash replays the same link instead of making a second one. The outcomes of a batch
 * (SVC_BULK_PAYLINK_BATCH_SIZE rows) are recorded in one transaction, which also finishes the job.
 */
import { and, asc, eq, isNotNull, lte, sql } from 'drizzle-orm';
import { rowsOf, type Tx } from '../../db/client';
import { type BulkRowError, bulkPaymentJobs, bulkPaymentRows } from '../../db/schema/index';
import type { Deps } from '../../deps';
import type { ClientAuth } from '../../plugins/auth';
import { BankProviderError } from '../../providers/bank/port';
import { addSeconds } from '../../shared/clock';
import { AppError, ValidationError } from '../../shared/errors';
import { M } from '../../shared/messages';
import { findOrCreateUserByEmail } from '../customers/customers.service';
import { actorOf, createPlatformPaymentLink, type PaylinkInput } from '../payments/paylink.service';
import { findTransactionById } from '../payments/payments.repo';
import { cancelTransaction } from '../payments/payments.service';
import { AUTOMATIC } from '../payments/status.service';
import { finishTrigger } from './bulk.machine';
import {
  type BulkRow,
  countRows,
  findJobById,
  type JobRow,
  leasePendingRows,
  lockDrainedJobs,
  lockDueJobs,
  pendingLinksOf,
} from './bulk.repo';
import { moveJob } from './bulk.transitions';
import { errorOfIssue } from './bulk-validate.service';

/** Links created at once within a batch (each is a few queries plus the bank call). */
const LINK_CONCURRENCY = 8;
const SIM_FAIL_ONCE = 'sim_fail_once_';
const SIM_FAIL = 'sim_fail_';

type Outcome =
  | { kind: 'created'; transactionId: string; payerUserId: string | null }
  | { kind: 'failed'; errors: BulkRowError[]; payerUserId: string | null }
  /** Not decided (claim of a crashed attempt still fresh, database trouble): retried once the lease lapses. */
  | { kind: 'later' };

const failed = (msg: string, payerUserId: string | null = null): Outcome => ({
  kind: 'failed',
  errors: [{ field: null, value: null, msg }],
  payerUserId,
});

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}

/** Sandbox magic references (ignored in production): sim_fail_once_ fails the first attempt, sim_fail_ every one. */
function simulatedFailure(deps: Deps, row: BulkRow): boolean {
  const ref = row.reference;
  if (deps.config.environment !== 'sandbox' || !ref) return false;
  if (ref.startsWith(SIM_FAIL_ONCE)) return row.attempts <= 1;
  return ref.startsWith(SIM_FAIL);
}

async function createRowLink(deps: Deps, job: JobRow, row: BulkRow): Promise<Outcome> {
  let payer = row.payerUserId;
  if (simulatedFailure(deps, row)) return failed(M.failedToInitiatePayment, payer);
  const email = typeof row.input.email === 'string' ? row.input.email : null;
  const mayCreate = job.createMissingUsers && email !== null;
  const body = { ...(row.body ?? {}) };
  const link = (payerId: string | null) =>
    createPlatformPaymentLink(deps, {
      clientId: job.clientId,
      actor: AUTOMATIC,
      key: `bulk:${job.id}:${row.rowNumber}`,
      body: (payerId
        ? { ...body, user_id: payerId, business_customer_id: undefined }
        : body) as unknown as PaylinkInput,
      origin: { type: 'bulk', id: job.id },
    });
  try {
    if (!payer && mayCreate && body.user_id === undefined && body.business_customer_id === undefined)
      payer = (await findOrCreateUserByEmail(deps, job.clientId, email!)).userId;
    let res: Awaited<ReturnType<typeof link>>;
    try {
      res = await link(payer);
    } catch (err) {
      // The named payer is gone: with create_missing_users, the user with the row's email.
      if (!(err instanceof AppError && err.detail === M.userNotFoundCreateFirst && mayCreate && !payer))
        throw err;
      payer = (await findOrCreateUserByEmail(deps, job.clientId, email!)).userId;
      res = await link(payer);
    }
    return { kind: 'created', transactionId: res.transaction.id, payerUserId: payer };
  } catch (err) {
    if (err instanceof ValidationError)
      return {
        kind: 'failed',
        errors: err.issues.map((i) => errorOfIssue(i, body, row.input)),
        payerUserId: payer,
      };
    if (err instanceof AppError) {
      if (err.statusCode === 409 && err.detail === M.idempotencyInProgress) return { kind: 'later' };
      return failed(err.detail, payer);
    }
    if (err instanceof BankProviderError) return failed(M.failedToInitiatePayment, payer);
    deps.log.error({ err, bulkId: job.id, row: row.rowNumber }, 'bulk row link creation failed');
    return { kind: 'later' };
  }
}

/** Leases a batch of pending rows, creates their links, records the outcomes in one transaction. */
export async function processBulkRows(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const lease = addSeconds(now, deps.config.idempotencyStaleSeconds);
  const rows = await deps.db.transaction((tx) =>
    leasePendingRows(tx, now, lease, deps.config.bulkPaylinkBatchSize),
  );
  if (rows.length === 0) return 0;
  const jobs = new Map<string, JobRow>();
  for (const id of new Set(rows.map((r) => r.bulkId))) {
    const job = await findJobById(deps.db, id);
    if (job) jobs.set(id, job);
  }
  const outcomes = await mapLimit(rows, LINK_CONCURRENCY, (row) =>
    createRowLink(deps, jobs.get(row.bulkId)!, row),
  );
  const at = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    for (const [i, row] of rows.entries()) {
      const o = outcomes[i]!;
      if (o.kind === 'later') continue;
      const key = and(eq(bulkPaymentRows.bulkId, row.bulkId), eq(bulkPaymentRows.rowNumber, row.rowNumber));
      const [moved] = await tx
        .update(bulkPaymentRows)
        .set({
          ...(o.kind === 'created'
            ? { status: 'created', transactionId: o.transactionId, errors: [] }
            : { status: 'failed', errors: o.errors }),
          payerUserId: o.payerUserId,
          leaseUntil: null,
          updatedAt: at,
        })
        .where(and(key, eq(bulkPaymentRows.status, 'pending')))
        .returning({ n: bulkPaymentRows.rowNumber });
      if (moved) continue;
      if (o.kind === 'created') {
        // The job was canceled while the link was being made: keep the link on the canceled row,
        // and cancel its intent too when the job asked for that.
        await tx
          .update(bulkPaymentRows)
          .set({ transactionId: o.transactionId, leaseUntil: null, updatedAt: at })
          .where(and(key, eq(bulkPaymentRows.status, 'canceled')));
        await tx
          .update(bulkPaymentJobs)
          .set({ cancelLinksDueAt: at })
          .where(and(eq(bulkPaymentJobs.id, row.bulkId), eq(bulkPaymentJobs.cancelCreatedLinks, true)));
      }
    }
    await finishJobs(tx, at, [...jobs.keys()]);
  });
  return rows.length;
}

async function finishJobs(tx: Tx, at: Date, ids?: string[]): Promise<number> {
  const drained = await lockDrainedJobs(tx, 20, ids);
  if (drained.length === 0) return 0;
  const counts = await countRows(
    tx,
    drained.map((j) => j.id),
  );
  for (const job of drained) await moveJob(tx, job, finishTrigger(counts.get(job.id)!), at);
  return drained.length;
}

/** Processing jobs with nothing pending (all rows invalid, or a retry with nothing to redo) finish. */
export async function finishDrainedJobs(deps: Deps): Promise<number> {
  return deps.db.transaction((tx) => finishJobs(tx, deps.clock.now()));
}

/** queued -> processing. */
export async function startQueuedJobs(deps: Deps, limit = 10): Promise<number> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const due = await lockDueJobs(
      tx,
      eq(bulkPaymentJobs.status, 'queued'),
      asc(bulkPaymentJobs.createdAt),
      limit,
    );
    for (const job of due) await moveJob(tx, job, 'claim', now);
    return due.length;
  });
}

/** previewed -> expired once SVC_BULK_PREVIEW_TTL_HOURS passed. */
export async function expireBulkPreviews(deps: Deps, limit = 50): Promise<number> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const due = await lockDueJobs(
      tx,
      and(eq(bulkPaymentJobs.status, 'previewed'), lte(bulkPaymentJobs.previewExpiresAt, now))!,
      asc(bulkPaymentJobs.previewExpiresAt),
      limit,
    );
    for (const job of due) await moveJob(tx, job, 'expire_preview', now);
    return due.length;
  });
}

/**
 * Cancels the pending intents of a canceled job's created links (intent-cancel rules, each in its own
 * transaction, the bank told afterwards). The job's due time is a lease: a crash leaves it due again.
 */
export async function cancelCreatedLinks(
  deps: Deps,
  bulkId: string,
  auth: ClientAuth | null,
): Promise<number> {
  const now = deps.clock.now();
  const [claimed] = await deps.db
    .update(bulkPaymentJobs)
    .set({ cancelLinksDueAt: addSeconds(now, 60) })
    .where(and(eq(bulkPaymentJobs.id, bulkId), lte(bulkPaymentJobs.cancelLinksDueAt, now)))
    .returning({ due: bulkPaymentJobs.cancelLinksDueAt });
  if (!claimed) return 0;
  const actor = auth ? actorOf(auth) : AUTOMATIC;
  let canceled = 0;
  for (const id of await pendingLinksOf(deps.db, bulkId)) {
    const t = await findTransactionById(deps.db, id);
    if (!t) continue;
    try {
      await cancelTransaction(deps, t, actor, 'Canceled with its bulk job');
      canceled++;
    } catch (err) {
      // Already terminal (paid or expired meanwhile): nothing to cancel.
      if (!(err instanceof AppError && err.statusCode === 409)) throw err;
    }
  }
  await deps.db
    .update(bulkPaymentJobs)
    .set({ cancelLinksDueAt: null })
    .where(and(eq(bulkPaymentJobs.id, bulkId), eq(bulkPaymentJobs.cancelLinksDueAt, claimed.due!)));
  return canceled;
}

async function cancelDueLinks(deps: Deps): Promise<number> {
  const due = await deps.db
    .select({ id: bulkPaymentJobs.id })
    .from(bulkPaymentJobs)
    .where(
      and(
        isNotNull(bulkPaymentJobs.cancelLinksDueAt),
        lte(bulkPaymentJobs.cancelLinksDueAt, deps.clock.now()),
      ),
    )
    .limit(5);
  let n = 0;
  for (const j of due) n += await cancelCreatedLinks(deps, j.id, null);
  return n;
}

/** One tick of the bulk worker; a positive result means there may be more to do at once. */
/**
 * "Anything to do?" in one statement over the partial indexes, so an idle tick opens no transaction:
 * a job queued or processing, a preview past its expiry, links to cancel.
 */
async function bulkWorkDue(deps: Deps): Promise<boolean> {
  const now = deps.clock.now();
  const res = await deps.db.execute(sql`
    select exists (select 1 from bulk_payment_jobs where status in ('queued', 'processing'))
        or exists (select 1 from bulk_payment_jobs where status = 'previewed' and preview_expires_at <= ${now})
        or exists (select 1 from bulk_payment_jobs where cancel_links_due_at is not null and cancel_links_due_at <= ${now})
        as due`);
  return rowsOf<{ due: boolean }>(res)[0]?.due === true;
}

export async function runBulkWorker(deps: Deps): Promise<number> {
  if (!(await bulkWorkDue(deps))) return 0;
  let did = 0;
  did += await expireBulkPreviews(deps);
  did += await startQueuedJobs(deps);
  did += await processBulkRows(deps);
  did += await finishDrainedJobs(deps);
  did += await cancelDueLinks(deps);
  return did;
}
