/**
 * A background loop: runs `tick` until stopped; drains immediately while work remains, else waits.
 * An idle loop backs off: each tick that finds nothing doubles the wait, from `intervalMs` up to
 * `idleMaxMs`; the first tick that finds work brings it back to `intervalMs` (docs/platform.md,
 * "Idle cost"). The modules' workers are of two kinds: `sweepWorker` (rows with a due time) and
 * `periodicWorker` (a fixed period of minutes or hours).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Deps } from '../deps';

export interface Worker {
  readonly name: string;
  start(): void;
  /** Stops scheduling and waits for the tick in flight to finish. */
  stop(): Promise<void>;
  /** Runs one tick now (tests use this instead of waiting for the timer). */
  runOnce(): Promise<number>;
}

export interface LoopOptions {
  /** The longest wait between two idle ticks; default `intervalMs` (no back-off). */
  idleMaxMs?: number;
}

/** The wait after a tick: the base while there is work, doubling while idle up to the bound. */
export function nextWait(
  previous: number | null,
  did: number,
  intervalMs: number,
  idleMaxMs: number,
): number {
  if (did > 0 || previous === null) return intervalMs;
  return Math.min(Math.max(previous * 2, intervalMs), Math.max(idleMaxMs, intervalMs));
}

/** `tick` returns how much work it did; a positive number means "there may be more, go again". */
export function loopWorker(
  name: string,
  intervalMs: number,
  tick: () => Promise<number>,
  log: FastifyBaseLogger,
  opts: LoopOptions = {},
): Worker {
  const idleMaxMs = opts.idleMaxMs ?? intervalMs;
  let running = false;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<number> | null = null;
  let wake: (() => void) | null = null;

  const runOnce = async (): Promise<number> => {
    while (inFlight) await inFlight.catch(() => 0);
    inFlight = tick();
    try {
      return await inFlight;
    } finally {
      inFlight = null;
    }
  };

  const loop = async () => {
    let wait: number | null = null;
    while (running) {
      let did = 0;
      try {
        did = await runOnce();
      } catch (err) {
        log.error({ err, worker: name }, 'worker tick failed');
      }
      if (!running) break;
      if (did > 0) {
        wait = null;
        continue;
      }
      wait = nextWait(wait, did, intervalMs, idleMaxMs);
      const ms = wait;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, ms);
      });
    }
  };

  return {
    name,
    start() {
      if (running) return;
      running = true;
      void loop();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      wake?.();
      while (inFlight) await inFlight.catch(() => 0);
    },
    runOnce,
  };
}

/** The longest idle wait of loops whose work a merchant or payer waits for. */
export const INTERACTIVE_IDLE_MAX_MS = 2_000;
/** The longest idle wait of due-time sweeps (an expiry or a retry is at most this late on an idle node). */
export const SWEEP_IDLE_MAX_MS = 10_000;

/** A due-time sweep: polls every `base` ms while it finds work, backs off to `idleMax` when idle. */
export function sweepWorker(
  deps: Pick<Deps, 'config' | 'log'>,
  name: string,
  tick: () => Promise<number>,
  base = Math.max(deps.config.workerPollMs, 1000),
  idleMax = SWEEP_IDLE_MAX_MS,
): Worker {
  return loopWorker(name, base, tick, deps.log, { idleMaxMs: Math.max(base, idleMax) });
}

/** A periodic scan with a fixed period (minutes or hours). */
export function periodicWorker(
  deps: Pick<Deps, 'log'>,
  name: string,
  periodMs: number,
  tick: () => Promise<number>,
): Worker {
  return loopWorker(name, periodMs, tick, deps.log);
}

/** Ticks that do their work whatever they find report 0, so the loop waits. */
export const quiet = (tick: () => Promise<unknown>) => async (): Promise<number> => {
  await tick();
  return 0;
};
