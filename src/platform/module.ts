/**
 * Module manifests: each feature declares, in its front-door file `src/modules/<feature>/index.ts`,
 * every way it is wired into the service (routes, pages, jobs, workers, event subscriptions, start-up
 * tasks). The app, the worker list, the jobs registry and the start-up tasks are derived from the
 * list of manifests in src/modules/index.ts. See docs/platform.md, "Module manifests".
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import type { HousekeepingTask } from '../workers/housekeeping';
import type { Worker } from '../workers/loop';
import { type AppEvents, type Listener, type Subscription, subscribe } from './events';
import type { InboundRoute } from './inbound';
import type { JobDefinition } from './jobs/define';
import type { TimerDefinition } from './jobs/timers';

/** A Fastify plugin of a feature's routes. */
export type RoutesPlugin = (app: FastifyInstance, opts: { deps: Deps }) => Promise<void>;

export type AppSubscription = Subscription<AppEvents, Deps>;

export interface ModuleManifest {
  /** The feature (its folder under src/modules). */
  name: string;
  /** Route plugins mounted under /api/v1, registered in this order. */
  api?: RoutesPlugin[];
  /** Route plugins at the root: hosted HTML pages (they get the form parser) and health. */
  pages?: RoutesPlugin[];
  /** The job kinds the feature enqueues; the jobs runner dispatches on their `kind`. */
  jobs?: JobDefinition<never>[];
  /**
   * The feature's one-shot due times (a link's expiry, an auto-close): job kinds set with `setTimer`
   * in the transaction that sets the row's due time, run by the jobs runner (docs/platform.md, "Timers").
   */
  timers?: TimerDefinition<never>[];
  /** How the feature takes a provider kind's notifications (one generic route serves them all: platform/inbound.ts). */
  inbound?: InboundRoute[];
  /** The feature's background workers (started after listen when SVC_WORKERS_ENABLED is on). */
  workers?: (deps: Deps) => Worker[];
  /**
   * The feature's retention and clean-up tasks, run by the one housekeeping loop
   * (src/workers/housekeeping.ts) rather than a loop each.
   */
  housekeeping?: (deps: Deps) => HousekeepingTask[];
  /** Reactions to other features' events, run inside the emitter's transaction (see events.ts). */
  subscriptions?: AppSubscription[];
  /** One-time tasks at start, after migrations; idempotent, since every node runs them. */
  startup?: ((deps: Deps) => Promise<void>)[];
}

/** Types a manifest. */
export function defineModule(manifest: ModuleManifest): ModuleManifest {
  return manifest;
}

/** A subscription of the app's bus: `on('payments.status_changed', async (change, { tx, deps }) => …)`. */
export function on<K extends keyof AppEvents>(
  event: K,
  listener: Listener<AppEvents, K, Deps>,
): AppSubscription {
  return subscribe<AppEvents, K, Deps>(event, listener);
}
