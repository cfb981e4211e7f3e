/**
 * The platform's `transition` over a real table: the table's check, the compare-and-set on status
 * (and version), the feature's hooks in order inside the caller's transaction, and what a lost
 * compare-and-set answers.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentSchedules, SCHEDULE_STATUSES } from '../../src/db/schema/index';
import { compareAndSet, defineMachine, machineTable, transition } from '../../src/platform/machine';
import { AppError, badRequest } from '../../src/shared/errors';
import { newId } from '../../src/shared/ids';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';

const machine = defineMachine({
  name: 'test schedule',
  statuses: SCHEDULE_STATUSES,
  transitions: {
    fall_behind: { from: ['active'], to: 'past_due' },
    catch_up: { from: ['past_due'], to: 'active' },
    cancel: { from: ['active', 'past_due'], to: 'canceled' },
  },
  terminal: ['completed', 'canceled'],
  refused: (_t, from) => badRequest(`Test schedule in status '${from}' does not allow this action`),
});
const CONFLICT = 'Test schedule was changed meanwhile, please retry';
const versioned = machineTable(machine, paymentSchedules, { version: 'version', conflict: CONFLICT });
const plain = machineTable(machine, paymentSchedules, { conflict: CONFLICT });

let ctx: TestContext;
let clientId: string;
beforeAll(async () => {
  ctx = await createTestApp();
  clientId = (await createTestClient(ctx)).clientId;
});
afterAll(async () => {
  await ctx.close();
});

async function schedule(status: (typeof SCHEDULE_STATUSES)[number] = 'active') {
  const [s] = await ctx.db
    .insert(paymentSchedules)
    .values({
      clientId,
      status,
      projectId: newId(),
      currency: 'EUR',
      totalAmount: '10.00',
      issueDaysBefore: 3,
      graceDays: 3,
      delivery: 'none',
      reminders: false,
      maxLinks: 3,
    })
    .returning();
  return s!;
}
const reload = async (id: string, db: Pick<TestContext['db'], 'select'> = ctx.db) =>
  (await db.select().from(paymentSchedules).where(eq(paymentSchedules.id, id)))[0]!;

describe('transition', () => {
  it('moves by compare-and-set, bumps the version, then runs the hooks in order with the move', async () => {
    const s = await schedule();
    const calls: string[] = [];
    const hook =
      (name: string) => async (row: typeof s, m: { trigger: string; from: string; to: string }) => {
        calls.push(`${name}:${row.status}:${m.trigger}:${m.from}->${m.to}`);
      };
    const moved = await ctx.db.transaction((tx) =>
      transition(tx, versioned, s, 'fall_behind', {
        set: ({ to }) => ({ cancelReason: `now ${to}` }),
        before: hook('before'),
        event: hook('event'),
        activity: hook('activity'),
        notify: hook('notify'),
        after: hook('after'),
      }),
    );
    expect(moved).toMatchObject({ status: 'past_due', version: s.version + 1, cancelReason: 'now past_due' });
    expect(calls).toEqual(
      ['before', 'event', 'activity', 'notify', 'after'].map(
        (h) => `${h}:past_due:fall_behind:active->past_due`,
      ),
    );
    expect(await reload(s.id)).toMatchObject({ status: 'past_due', version: s.version + 1 });
  });

  it('a move the table refuses throws its refusal and writes nothing', async () => {
    const s = await schedule('canceled');
    let ran = false;
    const attempt = ctx.db.transaction((tx) =>
      transition(tx, versioned, s, 'catch_up', {
        event: async () => {
          ran = true;
        },
      }),
    );
    await expect(attempt).rejects.toMatchObject({
      statusCode: 400,
      detail: "Test schedule in status 'canceled' does not allow this action",
    });
    expect(ran).toBe(false);
    expect(await reload(s.id)).toMatchObject({ status: 'canceled', version: s.version });
  });

  it('another writer first: the 409 by default, null on request, or a fresh decision on reload', async () => {
    const s = await schedule();
    await ctx.db.update(paymentSchedules).set({ status: 'past_due' }).where(eq(paymentSchedules.id, s.id));
    const stale = s; // still says active

    await expect(
      ctx.db.transaction((tx) => transition(tx, plain, stale, 'fall_behind')),
    ).rejects.toBeInstanceOf(AppError);
    await expect(
      ctx.db.transaction((tx) => transition(tx, plain, stale, 'fall_behind')),
    ).rejects.toMatchObject({
      statusCode: 409,
      detail: CONFLICT,
    });
    expect(
      await ctx.db.transaction((tx) => transition(tx, plain, stale, 'cancel', { lost: 'null' })),
    ).toBeNull();

    const decided = await ctx.db.transaction((tx) =>
      transition(tx, plain, stale, (cur) => (cur.status === 'active' ? 'fall_behind' : 'catch_up'), {
        lost: { reload: () => reload(s.id, tx) },
      }),
    );
    expect(decided?.status).toBe('active');
  });

  it('the version decides too: a row moved and moved back is still someone else’s change', async () => {
    const s = await schedule();
    await ctx.db
      .update(paymentSchedules)
      .set({ version: s.version + 2 })
      .where(eq(paymentSchedules.id, s.id));
    await expect(ctx.db.transaction((tx) => transition(tx, versioned, s, 'cancel'))).rejects.toMatchObject({
      statusCode: 409,
    });
    expect(await ctx.db.transaction((tx) => transition(tx, plain, s, 'cancel'))).toMatchObject({
      status: 'canceled',
    });
  });

  it('a decision of null is nothing to do', async () => {
    const s = await schedule();
    expect(await ctx.db.transaction((tx) => transition(tx, versioned, s, () => null, {}))).toBeNull();
    expect((await reload(s.id)).version).toBe(s.version);
  });

  it('the hooks run in the caller’s transaction: one that fails undoes the move', async () => {
    const s = await schedule();
    const failing = ctx.db.transaction((tx) =>
      transition(tx, versioned, s, 'cancel', {
        activity: async () => {
          throw new Error('activity write failed');
        },
      }),
    );
    await expect(failing).rejects.toThrow('activity write failed');
    expect(await reload(s.id)).toMatchObject({ status: 'active', version: s.version });
  });

  it('compareAndSet writes other columns on the same terms, and a table is checked when bound', async () => {
    const s = await schedule();
    const written = await compareAndSet(ctx.db, versioned, s, { description: 'renamed' });
    expect(written).toMatchObject({ status: 'active', description: 'renamed', version: s.version + 1 });
    expect(await compareAndSet(ctx.db, versioned, s, { description: 'stale' })).toBeNull();
    expect(() =>
      machineTable(machine, paymentSchedules, { version: 'state' as 'version', conflict: CONFLICT }),
    ).toThrow("test schedule machine: its table has no 'state' column");
  });
});
