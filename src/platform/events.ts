/**
 * The typed event bus: how one feature reacts to another's change (a payment succeeding marks an
 * invoice paid) without the emitter knowing who listens. See docs/platform.md, "Events".
 *
 * - The bus belongs to one app instance: it is built with that app's deps from the manifests'
 *   subscriptions (`deps.events`), and a listener gets those deps as an argument. Nothing is
 *   registered at import time, so two apps in one process never see each other's listeners.
 * - Listeners run in the emitter's database transaction, in subscription order, before the emitter
 *   goes on: their writes commit or roll back with the change, and a listener that throws fails the
 *   change. A listener does database work only; a call to a vendor or an email is a job it enqueues.
 */
import type { Tx } from '../db/client';

/**
 * Every event of the app by name, with its payload. The feature that emits an event declares it
 * beside the emitter, so the bus is typed without the platform importing a feature:
 *
 *     declare module '../../platform/events' {
 *       interface AppEvents { 'payments.status_changed': PaymentStatusChange }
 *     }
 */
// biome-ignore lint/suspicious/noEmptyInterface: the features add their events (declaration merging)
export interface AppEvents {}

export interface ListenerContext<D> {
  /** The emitter's transaction. */
  tx: Tx;
  /** The deps of the app the bus belongs to. */
  deps: D;
}

/** Returns true when it acted on the event (`emit` reports whether any listener did); most return nothing. */
export type Listener<E, K extends keyof E, D> = (
  event: E[K],
  ctx: ListenerContext<D>,
  // biome-ignore lint/suspicious/noConfusingVoidType: a listener without a return statement is a Promise<void>
) => Promise<boolean | void>;

/** One listener of one event (a union over the event names, so each listener keeps its payload type). */
export type Subscription<E, D> = { [K in keyof E]: { event: K; listener: Listener<E, K, D> } }[keyof E];

export interface EventBus<E = AppEvents> {
  /** Runs the event's listeners in `tx`, one after the other; true when one of them acted on it. */
  emit<K extends keyof E>(tx: Tx, event: K, payload: E[K]): Promise<boolean>;
}

/** A subscription, typed by the event's name. */
export function subscribe<E, K extends keyof E, D>(
  event: K,
  listener: Listener<E, K, D>,
): Subscription<E, D> {
  return { event, listener } as unknown as Subscription<E, D>;
}

/**
 * The bus of one app. `deps` is read when an event is emitted (the bus is itself one of the deps, so
 * it is built before them: `const deps = { …, events: createEventBus(subs, () => deps) }`).
 */
export function createEventBus<E, D>(
  subscriptions: readonly Subscription<E, D>[],
  deps: () => D,
): EventBus<E> {
  const byEvent = new Map<keyof E, Listener<E, keyof E, D>[]>();
  for (const s of subscriptions as readonly { event: keyof E; listener: Listener<E, keyof E, D> }[]) {
    const list = byEvent.get(s.event) ?? [];
    list.push(s.listener);
    byEvent.set(s.event, list);
  }
  return {
    async emit(tx, event, payload) {
      let acted = false;
      for (const listener of byEvent.get(event) ?? [])
        if ((await listener(payload as E[keyof E], { tx, deps: deps() })) === true) acted = true;
      return acted;
    },
  };
}
