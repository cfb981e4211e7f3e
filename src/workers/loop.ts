/** A background loop: runs `tick` until stopped; drains immediately while work remains, else waits. */
import type { FastifyBaseLogger } from 'fastify';

export interface Worker {
  readonly name: string;
  start(): void;
  /** Stops scheduling and waits for the tick in flight to finish. */
  stop(): Promise<void>;
  /** Runs one tick now (tests use this instead of waiting for the timer). */
  runOnce(): Promise<number>;
}

/** `tick` returns how much work it did; a positive number means "there may be more, go again". */
export function loopWorker(
  name: string,
  intervalMs: number,
  tick: () => Promise<number>,
  log: FastifyBaseLogger,
): Worker {
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
    while (running) {
      let did = 0;
      try {
        did = await runOnce();
      } catch (err) {
        log.error({ err, worker: name }, 'worker tick failed');
      }
      if (!running) break;
      if (did > 0) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, intervalMs);
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
