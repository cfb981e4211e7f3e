/**
 * The event bus (src/platform/events.ts): typed subscriptions, listeners that get the deps of the
 * app the bus belongs to and the emitter's transaction, and no state outside a bus.
 */
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../src/db/client';
import { createEventBus, type Listener, type Subscription, subscribe } from '../../src/platform/events';

interface TestEvents {
  'parcel.moved': { parcelId: string; to: 'shipped' | 'delivered' };
  'parcel.lost': { parcelId: string };
}
interface TestDeps {
  node: string;
  log: string[];
}

/** A stand-in for the emitter's transaction: the bus only hands it over. */
const fakeTx = (name: string) => ({ name }) as unknown as Tx;

const on = <K extends keyof TestEvents>(
  event: K,
  listener: Listener<TestEvents, K, TestDeps>,
): Subscription<TestEvents, TestDeps> => subscribe<TestEvents, K, TestDeps>(event, listener);

describe('event bus', () => {
  it('types each subscription by its event: the payload of that event, the emitter has to send it', async () => {
    const seen: string[] = [];
    const subscriptions = [
      on('parcel.moved', async (e) => {
        seen.push(`${e.parcelId} ${e.to}`);
        // @ts-expect-error: `parcel.moved` carries no `reason`
        void e.reason;
      }),
      on('parcel.lost', async (e) => {
        seen.push(`${e.parcelId} lost`);
      }),
    ];
    const bus = createEventBus(subscriptions, () => ({ node: 'a', log: [] }));
    await bus.emit(fakeTx('t1'), 'parcel.moved', { parcelId: 'p1', to: 'shipped' });
    await bus.emit(fakeTx('t1'), 'parcel.lost', { parcelId: 'p2' });
    expect(seen).toEqual(['p1 shipped', 'p2 lost']);

    // @ts-expect-error: `to` must be one of the event's statuses
    await bus.emit(fakeTx('t1'), 'parcel.moved', { parcelId: 'p1', to: 'returned' });
    // @ts-expect-error: no such event
    await bus.emit(fakeTx('t1'), 'parcel.found', { parcelId: 'p1' });
  });

  it("hands each listener the app's deps and the emitter's transaction, in subscription order", async () => {
    const calls: string[] = [];
    const subscriptions = [
      on('parcel.moved', async (e, { deps, tx }) => {
        calls.push(`first ${deps.node} ${(tx as unknown as { name: string }).name} ${e.parcelId}`);
      }),
      on('parcel.moved', async (e, { deps }) => {
        deps.log.push(e.parcelId);
        calls.push(`second ${deps.node}`);
      }),
    ];
    const deps: TestDeps = { node: 'node-1', log: [] };
    const bus = createEventBus(subscriptions, () => deps);
    await bus.emit(fakeTx('tx-42'), 'parcel.moved', { parcelId: 'p9', to: 'delivered' });
    expect(calls).toEqual(['first node-1 tx-42 p9', 'second node-1']);
    expect(deps.log).toEqual(['p9']);
  });

  it('reports whether a listener acted on the event; an event nobody listens to is not acted on', async () => {
    const bus = createEventBus(
      [on('parcel.moved', async () => undefined), on('parcel.moved', async (e) => e.to === 'delivered')],
      () => ({ node: 'a', log: [] }),
    );
    expect(await bus.emit(fakeTx('t'), 'parcel.moved', { parcelId: 'p', to: 'shipped' })).toBe(false);
    expect(await bus.emit(fakeTx('t'), 'parcel.moved', { parcelId: 'p', to: 'delivered' })).toBe(true);
    expect(await bus.emit(fakeTx('t'), 'parcel.lost', { parcelId: 'p' })).toBe(false);
  });

  it("fails the emitter when a listener throws (its transaction rolls back), and later listeners don't run", async () => {
    const ran: string[] = [];
    const bus = createEventBus(
      [
        on('parcel.lost', async () => {
          throw new Error('cannot record the loss');
        }),
        on('parcel.lost', async () => {
          ran.push('second');
        }),
      ],
      () => ({ node: 'a', log: [] }),
    );
    await expect(bus.emit(fakeTx('t'), 'parcel.lost', { parcelId: 'p' })).rejects.toThrow(
      'cannot record the loss',
    );
    expect(ran).toEqual([]);
  });

  it('keeps no global state: two apps built from the same subscriptions each see their own deps', async () => {
    const subscriptions = [
      on('parcel.moved', async (e, { deps }) => {
        deps.log.push(`${deps.node}:${e.parcelId}`);
      }),
    ];
    const depsA: TestDeps = { node: 'A', log: [] };
    const depsB: TestDeps = { node: 'B', log: [] };
    const busA = createEventBus(subscriptions, () => depsA);
    const busB = createEventBus(subscriptions, () => depsB);
    await busA.emit(fakeTx('a'), 'parcel.moved', { parcelId: 'p1', to: 'shipped' });
    await busB.emit(fakeTx('b'), 'parcel.moved', { parcelId: 'p2', to: 'shipped' });
    await busA.emit(fakeTx('a'), 'parcel.moved', { parcelId: 'p3', to: 'delivered' });
    expect(depsA.log).toEqual(['A:p1', 'A:p3']);
    expect(depsB.log).toEqual(['B:p2']);

    // A listener one app has is not on another app's bus.
    const extra: string[] = [];
    const busC = createEventBus(
      [
        ...subscriptions,
        on('parcel.moved', async (e) => {
          extra.push(e.parcelId);
        }),
      ],
      () => ({ node: 'C', log: [] }),
    );
    await busA.emit(fakeTx('a'), 'parcel.moved', { parcelId: 'p4', to: 'shipped' });
    await busC.emit(fakeTx('c'), 'parcel.moved', { parcelId: 'p5', to: 'shipped' });
    expect(extra).toEqual(['p5']);
  });
});
