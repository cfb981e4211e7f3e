/** /readyz's database check answered from a recent result (src/modules/health/readiness.service.ts). */
import { expect, it } from 'vitest';
import {
  createReadiness,
  READINESS_FRESH_MS,
  READINESS_STALE_MS,
  type ReadinessResult,
} from '../../src/modules/health/readiness.service';

/** A check whose answer the test gives, one per call. */
function checks() {
  const pending: ((r: ReadinessResult) => void)[] = [];
  let calls = 0;
  return {
    run: () =>
      new Promise<ReadinessResult>((resolve) => {
        calls++;
        pending.push(resolve);
      }),
    answer: (r: ReadinessResult) => pending.shift()!(r),
    calls: () => calls,
  };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

const settled = async <T>(p: Promise<T>) => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

it('waits for the first check; a success then answers at once, with one background check per fresh period', async () => {
  let t = 0;
  const c = checks();
  const readiness = createReadiness(c.run, () => t);
  // Nothing known yet: concurrent requests wait for one shared check.
  const first = readiness.check();
  const second = readiness.check();
  expect(c.calls()).toBe(1);
  expect(await settled(first)).toBe(false);
  c.answer({ ok: true });
  expect(await first).toEqual({ ok: true });
  expect(await second).toEqual({ ok: true });
  // Fresh: no new check.
  t = READINESS_FRESH_MS - 1;
  expect(await readiness.check()).toEqual({ ok: true });
  expect(c.calls()).toBe(1);
  // Past the fresh period: answered from the last success while one check runs behind it.
  t = READINESS_FRESH_MS + 1;
  expect(await readiness.check()).toEqual({ ok: true });
  expect(await readiness.check()).toEqual({ ok: true });
  expect(c.calls()).toBe(2);
  c.answer({ ok: true });
  await flush();
  // That check's success counts from when it completed.
  t += READINESS_FRESH_MS - 2;
  expect(await readiness.check()).toEqual({ ok: true });
  expect(c.calls()).toBe(2);
});

it('a check still unanswered when the last success is STALE_MS old makes requests wait for it', async () => {
  let t = 0;
  const c = checks();
  const readiness = createReadiness(c.run, () => t);
  const first = readiness.check();
  c.answer({ ok: true });
  await first;
  t = READINESS_FRESH_MS;
  expect(await readiness.check()).toEqual({ ok: true }); // starts a check that hangs
  t = READINESS_STALE_MS;
  const waiting = readiness.check();
  expect(c.calls()).toBe(2); // the same check
  expect(await settled(waiting)).toBe(false);
  c.answer({ ok: false, reason: 'database unreachable or not migrated' });
  expect(await waiting).toEqual({ ok: false, reason: 'database unreachable or not migrated' });
});

it('after a failed check every request waits for a check of its own; a thrown check is a failure', async () => {
  let t = 0;
  let fail = true;
  let calls = 0;
  const readiness = createReadiness(
    async () => {
      calls++;
      if (fail) throw new Error('connection refused');
      return { ok: true };
    },
    () => t,
  );
  expect(await readiness.check()).toEqual({ ok: false, reason: 'database check failed' });
  expect(await readiness.check()).toEqual({ ok: false, reason: 'database check failed' });
  expect(calls).toBe(2);
  fail = false;
  t = 10;
  expect(await readiness.check()).toEqual({ ok: true });
  expect(calls).toBe(3);
  expect(await readiness.check()).toEqual({ ok: true });
  expect(calls).toBe(3);
});
