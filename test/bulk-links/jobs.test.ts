/**
 * Bulk payment links over JSON rows: validation exactly like POST /checkout/paylink, the job and row
 * status tables (every row), preview/confirm (incl. concurrent confirms), expiry, cancel (with created
 * links), retry after patch, the sandbox sim_fail_ references, events, notifications, activity.
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activityLogs, kycUsers, notifications, transactions } from '../../src/db/schema/index';
import { BulkLinkMessages } from '../../src/modules/bulk-links/bulk.messages';
import { M } from '../../src/shared/messages';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { createPaymentWorld, newKey, setClient } from '../payments/fixtures';
import { action, bulkEvents, createJob, drain, getJob, getRows, postBulk, rowFor } from './fixtures';

const suite = paymentApp({ app: { env: { SVC_BULK_PAYLINK_BATCH_SIZE: '4' } } });

async function paylinkAnswer(body: Record<string, unknown>) {
  return suite.ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...suite.w.caller.headers, 'x-idempotency-key': newKey() },
    payload: body,
  });
}

describe('creation and validation', () => {
  it('queues valid rows, keeps invalid ones, creates one link per row with origin bulk', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, {
      rows: [
        { amount: '10.00', user_id: suite.w.userId, reference: 'r-1', 'metadata.order': 'A1' },
        { amount: '12.345', user_id: suite.w.userId, reference: 'r-2' },
        {
          amount: '7.5',
          business_customer_id: suite.w.businessCustomerId,
          description: 'Own text',
          reference: 'r-3',
        },
      ],
      defaults: {
        project_id: suite.w.projectId,
        currency: 'EUR',
        description: 'Invoice',
        expires_in_seconds: 3600,
      },
    });
    expect(job).toMatchObject({
      status: 'queued',
      source: 'json',
      counts: { total: 3, pending: 2, invalid: 1, valid: 0, created: 0 },
    });
    await drain(suite.ctx);
    const done = await getJob(suite.ctx, suite.w.caller, job.bulk_id);
    expect(done).toMatchObject({ status: 'completed_with_errors', counts: { created: 2, invalid: 1 } });
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();
    const rows = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    expect(rows.map((r) => [r.row_number, r.status])).toEqual([
      [1, 'created'],
      [2, 'invalid'],
      [3, 'created'],
    ]);
    expect(rows[1]!.errors).toEqual([
      { field: 'amount', value: '12.345', msg: 'Amount has more decimal places than the currency allows' },
    ]);
    const t = await suite.ctx.app.inject({
      url: `/api/v1/transactions/${rows[0]!.transaction_id}`,
      headers: suite.w.caller.headers,
    });
    expect(t.json()).toMatchObject({
      origin: { type: 'bulk', id: job.bulk_id },
      amount: '10.00',
      description: 'Invoice',
      metadata: { order: 'A1' },
      checkout_url: rows[0]!.checkout_url,
    });
    expect(new Date(t.json().expires_at).getTime() - suite.ctx.clock.now().getTime()).toBe(3600_000);
    const t3 = await suite.ctx.app.inject({
      url: `/api/v1/transactions/${rows[2]!.transaction_id}`,
      headers: suite.w.caller.headers,
    });
    expect(t3.json()).toMatchObject({
      amount: '7.50',
      description: 'Own text',
      business_customer_id: suite.w.businessCustomerId,
    });
    // Events: creation, claim, finish, with counts.
    const evs = (await bulkEvents(suite.ctx, suite.w.caller.clientId)).filter(
      (e) => e.bulk_id === job.bulk_id,
    );
    expect(evs.map((e) => [e.previous_status, e.current_status])).toEqual([
      [null, 'queued'],
      ['queued', 'processing'],
      ['processing', 'completed_with_errors'],
    ]);
    expect(evs[2]).toMatchObject({ total: 3, created: 2, failed: 0, invalid: 1, canceled: 0 });
    // Notification to the creator (an owner here) and activity entries.
    const notes = await suite.ctx.db
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.clientId, suite.w.caller.clientId), eq(notifications.category, 'bulk_links')),
      );
    expect(notes.some((n) => n.accountId === suite.w.caller.accountId && n.severity === 'warning')).toBe(
      true,
    );
    const acts = await suite.ctx.db.select().from(activityLogs).where(eq(activityLogs.targetId, job.bulk_id));
    expect(acts.map((a) => a.action).sort()).toEqual(
      ['bulk_job.completed_with_errors', 'bulk_job.created', 'bulk_job.started'].sort(),
    );
  });

  it('row errors are the messages POST /checkout/paylink answers for the same body', async () => {
    const bodies: Record<string, unknown>[] = [
      { amount: 'abc', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
      { amount: '5.00', currency: 'XXZ', project_id: suite.w.projectId, user_id: suite.w.userId },
      { amount: '0', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
      { amount: 5, currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
      { amount: '5.00', currency: 'EUR', project_id: suite.w.projectId },
      { amount: '5.00', currency: 'EUR', project_id: 'not-a-uuid', user_id: suite.w.userId },
      {
        amount: '5.00',
        currency: 'EUR',
        project_id: suite.w.projectId,
        user_id: suite.w.userId,
        expires_in_seconds: 5,
      },
      {
        amount: '5.00',
        currency: 'EUR',
        project_id: suite.w.projectId,
        user_id: '01a2013e-0000-7000-8000-000000000000',
      },
      {
        amount: '5.00',
        currency: 'EUR',
        project_id: '01a2013e-0000-7000-8000-000000000000',
        user_id: suite.w.userId,
      },
    ];
    const job = await createJob(suite.ctx, suite.w.caller, { rows: bodies, preview: true });
    expect(job.status).toBe('previewed');
    const rows = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    for (const [i, body] of bodies.entries()) {
      const res = await paylinkAnswer(body);
      expect(res.statusCode, JSON.stringify(body)).not.toBe(201);
      const detail = res.json().detail;
      const expected =
        typeof detail === 'string' ? [detail] : (detail as { msg: string }[]).map((d) => d.msg);
      expect(rows[i]!.status).toBe('invalid');
      expect(
        rows[i]!.errors.map((e) => e.msg),
        JSON.stringify(body),
      ).toEqual(expected);
    }
    expect(rows[0]!.errors[0]).toMatchObject({ field: 'amount', value: 'abc' });
    expect(rows[7]!.errors[0]).toEqual({
      field: 'user_id',
      value: '01a2013e-0000-7000-8000-000000000000',
      msg: M.userNotFoundCreateFirst,
    });
    expect(rows[8]!.errors[0]).toMatchObject({ field: 'project_id', msg: M.projectNotFound });
  });

  it('payers by email: an existing user is used; a missing one needs create_missing_users', async () => {
    const [existing] = await suite.ctx.db.select().from(kycUsers).where(eq(kycUsers.id, suite.w.userId));
    const base = { amount: '3.00', currency: 'EUR', project_id: suite.w.projectId };
    const rows = [
      { ...base, email: existing!.email.toUpperCase() },
      { ...base, email: 'new.payer@example.com' },
      { ...base, email: 'not-an-email' },
    ];
    const refused = await createJob(suite.ctx, suite.w.caller, { rows, preview: true });
    const r1 = await getRows(suite.ctx, suite.w.caller, refused.bulk_id);
    expect(r1.map((r) => r.status)).toEqual(['valid', 'invalid', 'invalid']);
    expect(r1[1]!.errors).toEqual([
      { field: 'email', value: 'new.payer@example.com', msg: M.userNotFoundCreateFirst },
    ]);
    expect(r1[2]!.errors[0]).toMatchObject({ field: 'email', msg: BulkLinkMessages.invalidEmail });

    const job = await createJob(suite.ctx, suite.w.caller, {
      rows: rows.slice(0, 2),
      create_missing_users: true,
    });
    expect(job.counts).toMatchObject({ pending: 2, invalid: 0 });
    await drain(suite.ctx);
    const done = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    expect(done.map((r) => r.status)).toEqual(['created', 'created']);
    const [created] = await suite.ctx.db
      .select()
      .from(kycUsers)
      .where(eq(kycUsers.email, 'new.payer@example.com'));
    expect(created).toBeDefined();
    const [t1] = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, done[0]!.transaction_id!));
    const [t2] = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, done[1]!.transaction_id!));
    expect(t1!.userId).toBe(suite.w.userId);
    expect(t2!.userId).toBe(created!.id);
  });

  it('references are unique within the job; unknown keys are warnings', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, {
      rows: [rowFor(suite.w, { reference: 'dup', colour: 'red' }), rowFor(suite.w, { reference: 'dup' })],
      preview: true,
    });
    expect(job.warnings).toEqual(["Unknown column 'colour' ignored"]);
    const rows = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    expect(rows.map((r) => r.status)).toEqual(['valid', 'invalid']);
    expect(rows[1]!.errors).toEqual([
      { field: 'reference', value: 'dup', msg: BulkLinkMessages.referenceNotUnique },
    ]);
  });

  it('limits and request errors', async () => {
    const tooMany = await postBulk(suite.ctx, suite.w.caller, {
      rows: Array.from({ length: 501 }, () => rowFor(suite.w)),
    });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().detail).toEqual([
      {
        loc: ['body', 'rows'],
        msg: 'Bulk payment links are limited to 500 rows per request',
        type: 'value_error',
      },
    ]);
    const both = await postBulk(suite.ctx, suite.w.caller, {
      rows: [rowFor(suite.w)],
      file: { file_name: 'a.csv', content_base64: '' },
    });
    expect(both.statusCode).toBe(422);
    expect((await postBulk(suite.ctx, suite.w.caller, {})).json().detail[0].msg).toBe(
      BulkLinkMessages.rowsOrFile,
    );
    const noKey = await postBulk(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w)] }, null);
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json()).toEqual({ detail: M.idempotencyKeyEmpty });
  });

  it('idempotent: the same key and body replay the job, another body is 409', async () => {
    const key = newKey();
    const body = { rows: [rowFor(suite.w)], preview: true };
    const first = await postBulk(suite.ctx, suite.w.caller, body, key);
    expect(first.statusCode).toBe(201);
    const again = await postBulk(suite.ctx, suite.w.caller, body, key);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const other = await postBulk(suite.ctx, suite.w.caller, { ...body, preview: false }, key);
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({ detail: M.idempotencyPayloadMismatch });
  });

  it('client-level paylink rules refuse the whole request', async () => {
    const other = await createPaymentWorld(suite.ctx);
    await setClient(suite.ctx, other.caller.clientId, { paymentLinksEnabled: false });
    const off = await postBulk(suite.ctx, other.caller, { rows: [rowFor(other)] });
    expect(off.statusCode).toBe(403);
    expect(off.json()).toEqual({ detail: M.paymentLinksDisabled });
    await setClient(suite.ctx, other.caller.clientId, { paymentLinksEnabled: true, callbackUrl: null });
    const noCallback = await postBulk(suite.ctx, other.caller, { rows: [rowFor(other)] });
    expect(noCallback.statusCode).toBe(400);
    expect(noCallback.json()).toEqual({ detail: M.callbackUrlNotSet });
  });

  it("another client's job is 404; developers cannot write", async () => {
    const job = await createJob(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w)], preview: true });
    const stranger = await createTestClient(suite.ctx);
    for (const url of ['', '/rows', '/results.csv']) {
      const res = await suite.ctx.app.inject({
        url: `/api/v1/checkout/paylink/bulk/${job.bulk_id}${url}`,
        headers: stranger.headers,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: BulkLinkMessages.jobNotFound });
    }
    expect((await action(suite.ctx, stranger, job.bulk_id, 'confirm')).statusCode).toBe(404);
    const dev = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.w.caller.clientId });
    expect((await action(suite.ctx, dev, job.bulk_id, 'confirm')).statusCode).toBe(403);
    expect(
      (
        await suite.ctx.app.inject({
          url: `/api/v1/checkout/paylink/bulk/${job.bulk_id}`,
          headers: dev.headers,
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('job status table', () => {
  it('previewed -> queued on confirm (valid -> pending) -> processing -> completed', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, {
      rows: [rowFor(suite.w), rowFor(suite.w)],
      preview: true,
    });
    expect(job).toMatchObject({ status: 'previewed', counts: { valid: 2 } });
    expect(job.preview_expires_at).toBe('2026-01-16T10:00:00.000Z');
    const res = await action(suite.ctx, suite.w.caller, job.bulk_id, 'confirm');
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ status: 'queued', counts: { pending: 2, valid: 0 } });
    expect(res.json().confirmed_at).not.toBeNull();
    await drain(suite.ctx);
    expect(await getJob(suite.ctx, suite.w.caller, job.bulk_id)).toMatchObject({
      status: 'completed',
      counts: { created: 2 },
    });
    // completed is terminal.
    for (const verb of ['confirm', 'retry', 'cancel'] as const) {
      const r = await action(
        suite.ctx,
        suite.w.caller,
        job.bulk_id,
        verb,
        verb === 'confirm' ? undefined : {},
      );
      expect(r.statusCode).toBe(400);
      expect(r.json()).toEqual({ detail: BulkLinkMessages.actionNotAllowed('completed') });
    }
  });

  it('concurrent confirm calls: one moves the job, the rest are refused, rows are processed once', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, {
      rows: [rowFor(suite.w), rowFor(suite.w), rowFor(suite.w)],
      preview: true,
    });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => action(suite.ctx, suite.w.caller, job.bulk_id, 'confirm')),
    );
    expect(answers.filter((a) => a.statusCode === 202)).toHaveLength(1);
    for (const a of answers.filter((x) => x.statusCode !== 202)) {
      expect(a.statusCode).toBe(400);
      expect(a.json()).toEqual({ detail: BulkLinkMessages.actionNotAllowed('queued') });
    }
    await drain(suite.ctx);
    const evs = (await bulkEvents(suite.ctx, suite.w.caller.clientId)).filter(
      (e) => e.bulk_id === job.bulk_id,
    );
    expect(evs.filter((e) => e.current_status === 'queued')).toHaveLength(1);
    const links = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.originId, job.bulk_id));
    expect(links).toHaveLength(3);
  });

  it('previewed and queued -> canceled (every row without a link -> canceled)', async () => {
    const p = await createJob(suite.ctx, suite.w.caller, {
      rows: [rowFor(suite.w), rowFor(suite.w), rowFor(suite.w, { amount: 'oops' })],
      preview: true,
    });
    const c1 = await action(suite.ctx, suite.w.caller, p.bulk_id, 'cancel', {});
    expect(c1.statusCode).toBe(200);
    expect(c1.json()).toMatchObject({
      status: 'canceled',
      counts: { total: 3, valid: 0, invalid: 0, canceled: 3 },
    });
    const rows = await getRows(suite.ctx, suite.w.caller, p.bulk_id);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['canceled', 'canceled', 'canceled']);
    // The invalid row keeps saying why it was invalid.
    expect(rows[2]!.errors.length).toBeGreaterThan(0);
    const [ev] = (await bulkEvents(suite.ctx, suite.w.caller.clientId)).filter(
      (e) => e.bulk_id === p.bulk_id && e.current_status === 'canceled',
    );
    expect(ev).toMatchObject({ total: 3, canceled: 3, invalid: 0 });
    const q = await createJob(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w), rowFor(suite.w)] });
    const c2 = await action(suite.ctx, suite.w.caller, q.bulk_id, 'cancel', {});
    expect(c2.json()).toMatchObject({ status: 'canceled', counts: { canceled: 2, pending: 0 } });
    expect(c2.json().canceled_at).not.toBeNull();
    await drain(suite.ctx);
    expect(
      await suite.ctx.db.select().from(transactions).where(eq(transactions.originId, q.bulk_id)),
    ).toHaveLength(0);
  });

  it('processing -> canceled with cancel_created_links: created intents canceled, the rest never made', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, {
      rows: Array.from({ length: 10 }, () => rowFor(suite.w)),
    });
    const { startQueuedJobs, processBulkRows } = await import('../../src/modules/bulk-links/bulk.worker');
    await startQueuedJobs(suite.ctx.deps);
    await processBulkRows(suite.ctx.deps); // one batch of 4
    const mid = await getJob(suite.ctx, suite.w.caller, job.bulk_id);
    expect(mid).toMatchObject({ status: 'processing', counts: { created: 4, pending: 6 } });
    const res = await action(suite.ctx, suite.w.caller, job.bulk_id, 'cancel', {
      cancel_created_links: true,
    });
    expect(res.json()).toMatchObject({ status: 'canceled', counts: { created: 4, canceled: 6 } });
    await drain(suite.ctx);
    const links = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.originId, job.bulk_id));
    expect(links).toHaveLength(4);
    expect(links.every((t) => t.status === 'canceled')).toBe(true);
  });

  it('retry after patch: completed_with_errors -> processing -> completed; failed/invalid -> pending', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, {
      rows: [
        rowFor(suite.w, { reference: 'sim_fail_once_1' }),
        rowFor(suite.w, { amount: 'oops', reference: 'fixme' }),
        rowFor(suite.w, { reference: 'ok-1' }),
        rowFor(suite.w, { reference: 'sim_fail_always' }),
      ],
    });
    await drain(suite.ctx);
    let rows = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    expect(rows.map((r) => r.status)).toEqual(['failed', 'invalid', 'created', 'failed']);
    expect(rows[0]!.errors).toEqual([{ field: null, value: null, msg: M.failedToInitiatePayment }]);
    expect((await getJob(suite.ctx, suite.w.caller, job.bulk_id)).status).toBe('completed_with_errors');

    // A patch that is still invalid keeps the row invalid; unknown columns and created rows are refused.
    const bad = await action(suite.ctx, suite.w.caller, job.bulk_id, 'retry', {
      rows_patch: [
        { row_number: 3, amount: '1.00' },
        { row_number: 2, colour: 'x' },
      ],
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'rows_patch', 0, 'row_number'],
      ['body', 'rows_patch', 1, 'colour'],
    ]);

    const first = await action(suite.ctx, suite.w.caller, job.bulk_id, 'retry', {
      rows_patch: [{ row_number: 2, amount: '1.999' }],
    });
    expect(first.statusCode).toBe(202);
    expect(first.json().status).toBe('processing');
    await drain(suite.ctx);
    rows = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    // sim_fail_once_ succeeds on its second attempt; sim_fail_ fails again; the patched row is still invalid.
    expect(rows.map((r) => r.status)).toEqual(['created', 'invalid', 'created', 'failed']);
    expect(rows[1]!.errors[0]).toMatchObject({ field: 'amount', value: '1.999' });
    expect(rows[0]!.attempts).toBe(2);

    const second = await action(suite.ctx, suite.w.caller, job.bulk_id, 'retry', {
      rows_patch: [
        { row_number: 2, amount: '1.99' },
        { row_number: 4, reference: 'now-fine' },
      ],
    });
    expect(second.statusCode).toBe(202);
    await drain(suite.ctx);
    rows = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    expect(rows.map((r) => r.status)).toEqual(['created', 'created', 'created', 'created']);
    expect(rows[1]!.input.amount).toBe('1.99');
    expect((await getJob(suite.ctx, suite.w.caller, job.bulk_id)).status).toBe('completed');
    const links = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.originId, job.bulk_id));
    expect(links).toHaveLength(4);
    const evs = (await bulkEvents(suite.ctx, suite.w.caller.clientId)).filter(
      (e) => e.bulk_id === job.bulk_id,
    );
    expect(evs.map((e) => e.current_status)).toEqual([
      'queued',
      'processing',
      'completed_with_errors',
      'processing',
      'completed_with_errors',
      'processing',
      'completed',
    ]);
    // Status filter on rows.
    expect(await getRows(suite.ctx, suite.w.caller, job.bulk_id, 'status=failed')).toEqual([]);
  });

  it('a job whose rows are all invalid goes straight to completed_with_errors; retry in another status is 400', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w, { amount: 'x' })] });
    const early = await action(suite.ctx, suite.w.caller, job.bulk_id, 'retry', {});
    expect(early.statusCode).toBe(400);
    expect(early.json()).toEqual({ detail: BulkLinkMessages.actionNotAllowed('queued') });
    await drain(suite.ctx);
    expect((await getJob(suite.ctx, suite.w.caller, job.bulk_id)).status).toBe('completed_with_errors');
  });

  it('a retried row that succeeded upstream is returned by its key, not created again', async () => {
    const job = await createJob(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w)] });
    const { startQueuedJobs, processBulkRows } = await import('../../src/modules/bulk-links/bulk.worker');
    await startQueuedJobs(suite.ctx.deps);
    // Make the link, then forget the outcome (as if the worker died before recording it).
    const { createPlatformPaymentLink } = await import('../../src/modules/payments/paylink.service');
    const { AUTOMATIC } = await import('../../src/modules/payments/status.service');
    const [row] = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    const { bulkPaymentRows } = await import('../../src/db/schema/index');
    const [stored] = await suite.ctx.db
      .select()
      .from(bulkPaymentRows)
      .where(eq(bulkPaymentRows.bulkId, job.bulk_id));
    const made = await createPlatformPaymentLink(suite.ctx.deps, {
      clientId: suite.w.caller.clientId,
      actor: AUTOMATIC,
      key: `bulk:${job.bulk_id}:${row!.row_number}`,
      body: stored!.body as never,
      origin: { type: 'bulk', id: job.bulk_id },
    });
    await processBulkRows(suite.ctx.deps);
    await drain(suite.ctx);
    const [after] = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
    expect(after!.transaction_id).toBe(made.transaction.id);
    expect(
      await suite.ctx.db.select().from(transactions).where(eq(transactions.originId, job.bulk_id)),
    ).toHaveLength(1);
  });
  it('(last: moves the clock a day) previewed -> expired after SVC_BULK_PREVIEW_TTL_HOURS (worker, or at confirm)', async () => {
    const a = await createJob(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w)], preview: true });
    const b = await createJob(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w)], preview: true });
    suite.ctx.clock.advanceSeconds(24 * 3600);
    // Tokens do not live a day: the same client signs in again.
    suite.w.caller = await createTestClient(suite.ctx, { clientId: suite.w.caller.clientId });
    const late = await action(suite.ctx, suite.w.caller, b.bulk_id, 'confirm');
    expect(late.statusCode).toBe(400);
    expect(late.json()).toEqual({ detail: BulkLinkMessages.actionNotAllowed('expired') });
    await drain(suite.ctx);
    expect((await getJob(suite.ctx, suite.w.caller, a.bulk_id)).status).toBe('expired');
    expect((await getJob(suite.ctx, suite.w.caller, b.bulk_id)).status).toBe('expired');
    const again = await action(suite.ctx, suite.w.caller, a.bulk_id, 'confirm');
    expect(again.json()).toEqual({ detail: BulkLinkMessages.actionNotAllowed('expired') });
  });
});
