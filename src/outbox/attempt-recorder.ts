/**
 * Records delivery attempts in batches: a send adds its result and frees its slot at once; one
 * statement at a time writes everything added meanwhile (group commit). A result reaching
 * dead_letter is written on its own, in the transaction that also notifies the client's members.
 * The delivery stays leased until its result is written, so no other worker can send it again.
 */
import type { Tx } from '../db/client';
import type { Deps } from '../deps';
import { type AttemptRecord, recordAttempts } from './delivery-store';

export interface AttemptRecorder {
  add(record: AttemptRecord): void;
  /** Results added and not yet written (or being written). */
  backlog(): number;
  /** Waits until everything added so far is written. */
  flushed(): Promise<void>;
}

export function createAttemptRecorder(
  deps: Deps,
  onDeadLetter: (tx: Tx, record: AttemptRecord) => Promise<void>,
  onFlushed: () => void,
): AttemptRecorder {
  let buffer: AttemptRecord[] = [];
  let writing = 0;
  let flushing: Promise<void> | null = null;

  const lost = (ids: Iterable<string>) => {
    for (const deliveryId of ids)
      deps.log.warn({ deliveryId }, 'webhook delivery lease lost; result kept in history only');
  };

  async function write(batch: AttemptRecord[]) {
    const dead = batch.filter((r) => r.status === 'dead_letter');
    const rest = batch.filter((r) => r.status !== 'dead_letter');
    try {
      lost(await recordAttempts(deps.db, rest));
    } catch (err) {
      // One bad row must not lose the others' results: write them one by one.
      deps.log.error({ err, count: rest.length }, 'webhook attempt batch failed; recording one by one');
      for (const r of rest)
        await recordAttempts(deps.db, [r]).then(lost, (e) =>
          deps.log.error({ err: e, deliveryId: r.delivery.id }, 'webhook delivery attempt failed to record'),
        );
    }
    for (const r of dead)
      await deps.db
        .transaction(async (tx) => {
          const gone = await recordAttempts(tx, [r]);
          if (gone.size === 0) await onDeadLetter(tx, r);
          return gone;
        })
        .then(lost, (err) =>
          deps.log.error({ err, deliveryId: r.delivery.id }, 'webhook delivery attempt failed to record'),
        );
  }

  function flush(): Promise<void> {
    if (flushing) return flushing;
    flushing = (async () => {
      while (buffer.length > 0) {
        const batch = buffer;
        buffer = [];
        writing = batch.length;
        await write(batch);
        writing = 0;
      }
    })().finally(() => {
      flushing = null;
      onFlushed();
    });
    return flushing;
  }

  return {
    add(record) {
      buffer.push(record);
      void flush();
    },
    backlog: () => buffer.length + writing,
    async flushed() {
      while (flushing || buffer.length > 0) await flush();
    },
  };
}
