/** A bulk job's allowed_actions match what the API accepts, per state and per role. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { bulkPaymentJobs } from '../../src/db/schema/index';
import { jobActions } from '../../src/modules/bulk-links/bulk.actions';
import { startQueuedJobs } from '../../src/modules/bulk-links/bulk.worker';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { action, createJob, drain, getJob, rowFor } from './fixtures';

const s = paymentApp();

type Action = (typeof jobActions.names)[number];

const job = async (body: Record<string, unknown>) => (await createJob(s.ctx, s.w.caller, body)).bulk_id;
const previewed = () => job({ rows: [rowFor(s.w)], preview: true });
const queued = () => job({ rows: [rowFor(s.w)] });

async function lapsedPreview() {
  const id = await previewed();
  await s.ctx.db
    .update(bulkPaymentJobs)
    .set({ previewExpiresAt: new Date(s.ctx.clock.now().getTime() - 1000) })
    .where(eq(bulkPaymentJobs.id, id));
  return id;
}

const perform = (a: Action, id: string) => action(s.ctx, s.w.caller, id, a, a === 'confirm' ? undefined : {});

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  previewed: { expected: ['confirm', 'cancel'], make: previewed },
  'previewed, preview lapsed': { expected: ['cancel'], make: lapsedPreview },
  queued: { expected: ['cancel'], make: queued },
  processing: {
    expected: ['cancel'],
    make: async () => {
      const id = await queued();
      await startQueuedJobs(s.ctx.deps);
      expect((await getJob(s.ctx, s.w.caller, id)).status).toBe('processing');
      return id;
    },
  },
  completed: {
    expected: [],
    make: async () => {
      const id = await queued();
      await drain(s.ctx);
      return id;
    },
  },
  completed_with_errors: {
    expected: ['retry'],
    make: async () => {
      const id = await job({ rows: [rowFor(s.w), rowFor(s.w, { amount: 'x' })] });
      await drain(s.ctx);
      expect((await getJob(s.ctx, s.w.caller, id)).status).toBe('completed_with_errors');
      return id;
    },
  },
  canceled: {
    expected: [],
    make: async () => {
      const id = await previewed();
      expect((await perform('cancel', id)).statusCode).toBe(200);
      return id;
    },
  },
  expired: {
    expected: [],
    make: async () => {
      const id = await lapsedPreview();
      expect((await action(s.ctx, s.w.caller, id, 'confirm')).statusCode).toBe(400);
      expect((await getJob(s.ctx, s.w.caller, id)).status).toBe('expired');
      return id;
    },
  },
};

describe('bulk job allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: jobActions.names,
        expected,
        make,
        actionsOf: async (id) => (await getJob(s.ctx, s.w.caller, id)).allowed_actions as string[],
        perform,
      }));

  it('every action answer carries them for the new status', async () => {
    const id = await previewed();
    const confirmed = await perform('confirm', id);
    expect(confirmed.statusCode).toBe(202);
    expect(confirmed.json()).toMatchObject({ status: 'queued', allowed_actions: ['cancel'] });
    expect((await perform('cancel', id)).json()).toMatchObject({ status: 'canceled', allowed_actions: [] });
  });

  it('a role without payments.write sees none; the list carries them per row', async () => {
    const id = await previewed();
    const dev = await createTestClient(s.ctx, { role: 'developer', clientId: s.w.caller.clientId });
    expect((await getJob(s.ctx, dev, id)).allowed_actions).toEqual([]);
    expect((await action(s.ctx, dev, id, 'confirm')).statusCode).toBe(403);
    const list = await s.ctx.app.inject({
      url: '/api/v1/checkout/paylink/bulk?page_size=200',
      headers: s.w.caller.headers,
    });
    const jobs = list.json().bulk_jobs as { status: string; allowed_actions: string[] }[];
    expect(jobs.length).toBeGreaterThan(5);
    const expected: Record<string, string[]> = {
      previewed: ['confirm', 'cancel'],
      queued: ['cancel'],
      processing: ['cancel'],
      completed_with_errors: ['retry'],
    };
    for (const j of jobs.filter((j) => j.status !== 'previewed' || j.allowed_actions.includes('confirm')))
      expect(j.allowed_actions, j.status).toEqual(expected[j.status] ?? []);
  });
});
