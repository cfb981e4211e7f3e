import { bigint, bigserial, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import type { TransactionStatus } from './transactions';

/**
 * Exact per-client, per-status transaction counts for `pagination.total` of GET /transactions,
 * kept as append-only deltas written by statement-level triggers on `transactions` (custom
 * migration `perf_transaction_counters`) inside the writing transaction: an INSERT adds +n, a
 * status change -1/+1, a DELETE -n. Appending never takes a row lock, so concurrent payment
 * creations do not queue on a counter row. The `transaction-count-compactor` housekeeping task folds the rows
 * of one (client, status) into one (a DELETE ... RETURNING and an INSERT of the sum in one
 * statement), so a total is the sum of a handful of rows however many transactions exist.
 * No foreign key: rows are counters, and deleting a client's transactions writes negative deltas.
 */
export const transactionCountDeltas = pgTable(
  'transaction_count_deltas',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    clientId: uuid('client_id').notNull(),
    status: text('status').$type<TransactionStatus>().notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [index('transaction_count_deltas_client_status_idx').on(t.clientId, t.status)],
);
