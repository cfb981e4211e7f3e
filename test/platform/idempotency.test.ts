/**
 * The idempotency API over both claim tables: key parsing, claim, replay, the two 409s, stale
 * takeover, completion in the caller's transaction, release after a failure. The concurrent races
 * are proved by the payment link and recurring race tests, on both engines.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyRecords, paymentIdempotencyKeys } from '../../src/db/schema/index';
import {
  type ClaimTable,
  claimIdempotencyKey,
  completeIdempotencyClaim,
  idempotencyKeyOf,
  releaseIdempotencyClaim,
  runIdempotent,
} from '../../src/platform/idempotency';
import { AppError } from '../../src/shared/errors';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';

let ctx: TestContext;
let clientId: string;
beforeAll(async () => {
  ctx = await createTestApp();
  clientId = (await createTestClient(ctx)).clientId;
});
afterAll(async () => {
  await ctx.close();
});

async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return { status: (err as AppError).statusCode, message: (err as AppError).message };
}

describe('the key', () => {
  it('is trimmed; empty, missing-when-required and too long are 400', () => {
    expect(idempotencyKeyOf(' k-1 ', true)).toBe('k-1');
    expect(idempotencyKeyOf(['a', 'b'], false)).toBe('a');
    expect(idempotencyKeyOf(undefined, false)).toBeUndefined();
    for (const [h, required] of [
      [undefined, true],
      ['  ', false],
      ['x'.repeat(256), false],
    ] as const)
      expect(() => idempotencyKeyOf(h, required)).toThrow(AppError);
    expect(() => idempotencyKeyOf('', false)).toThrow(M.idempotencyKeyEmpty);
  });
});

describe.each([
  ['idempotency_records', idempotencyRecords, 'test.scope'],
  ['payment_idempotency_keys', paymentIdempotencyKeys, 'api'],
] as [string, ClaimTable, string][])('claims in %s', (_name, table, scope) => {
  const claim = (key: string, fingerprint: string, now = ctx.clock.now()) =>
    claimIdempotencyKey(ctx.db, table, { clientId, scope, key, fingerprint, now, staleSeconds: 120 });

  it('claims once; the same payload in flight and another payload are 409', async () => {
    const key = `k-${Math.random()}`;
    const first = await claim(key, 'fp-1');
    expect(first.kind).toBe('claimed');
    expect(await refusal(claim(key, 'fp-1'))).toEqual({ status: 409, message: M.idempotencyInProgress });
    expect(await refusal(claim(key, 'fp-2'))).toEqual({ status: 409, message: M.idempotencyPayloadMismatch });
  });

  it('replays a completed claim; a completion after a takeover reports false', async () => {
    const key = `k-${Math.random()}`;
    const first = await claim(key, 'fp');
    if (first.kind !== 'claimed') throw new Error('expected a claim');
    const done = await ctx.db.transaction((tx) =>
      completeIdempotencyClaim(tx, table, first.id, { completedAt: ctx.clock.now() }),
    );
    expect(done).toBe(true);
    const again = await claim(key, 'fp');
    expect(again).toMatchObject({ kind: 'replay', record: { id: first.id, state: 'completed' } });
    expect(await completeIdempotencyClaim(ctx.db, table, first.id, { completedAt: ctx.clock.now() })).toBe(
      false,
    );
  });

  it('takes over a stale claim, and a released claim can be claimed again', async () => {
    const key = `k-${Math.random()}`;
    const crashed = await claim(key, 'fp');
    const later = new Date(ctx.clock.now().getTime() + 121_000);
    const takeover = await claim(key, 'fp', later);
    expect(takeover.kind).toBe('claimed');
    if (crashed.kind !== 'claimed' || takeover.kind !== 'claimed') throw new Error('expected claims');
    expect(takeover.id).not.toBe(crashed.id);
    await releaseIdempotencyClaim(ctx.db, table, takeover.id);
    expect((await claim(key, 'fp')).kind).toBe('claimed');
  });
});

describe('runIdempotent', () => {
  const req = (key: string | undefined, payload: unknown) => ({
    clientId,
    scope: 'test.run',
    header: key,
    required: false,
    payload,
  });

  it('runs once and replays the stored body with 200; a failure leaves the key free', async () => {
    let runs = 0;
    const exec = () =>
      runIdempotent(ctx.deps, req('r-1', { a: 1 }), async (commit) => {
        runs++;
        const body = { n: runs };
        await ctx.db.transaction((tx) => commit(tx, body, 201));
        return { body, status: 201 };
      });
    expect(await exec()).toEqual({ body: { n: 1 }, status: 201, replayed: false });
    expect(await exec()).toEqual({ body: { n: 1 }, status: 200, replayed: true });
    expect(runs).toBe(1);

    await expect(
      runIdempotent(ctx.deps, req('r-2', {}), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const left = await ctx.db
      .select()
      .from(idempotencyRecords)
      .where(and(eq(idempotencyRecords.clientId, clientId), eq(idempotencyRecords.idempotencyKey, 'r-2')));
    expect(left).toEqual([]);
  });

  it('without a key just runs', async () => {
    const res = await runIdempotent(ctx.deps, req(undefined, {}), async () => ({ body: 'x', status: 201 }));
    expect(res).toEqual({ body: 'x', status: 201, replayed: false });
  });
});
