import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/** The sandbox e-signing provider's own envelopes (providers/esign/simulator.ts). */
export const sandboxEsignEnvelopes = pgTable('sandbox_esign_envelopes', {
  ref: text('ref').primaryKey(),
  externalId: uuid('external_id').notNull(),
  title: text('title').notNull(),
  status: text('status').notNull(),
  /** Increases with every notification the simulator emits for this envelope. */
  revision: integer('revision').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Unused since the sandbox e-signing provider's delayed `+autosign` / `+autodecline` actions became
 * timer jobs (`sandbox.esign_action`, src/providers/sandbox-deliveries.ts): no longer written; the
 * timers' backfill reads the previous release's rows not yet done. Dropped in a later release
 * (docs/guides/operations.md, "Schema changes").
 */
export const sandboxEsignActions = pgTable(
  'sandbox_esign_actions',
  {
    id: idColumn('id'),
    envelopeRef: text('envelope_ref').notNull(),
    participantId: uuid('participant_id').notNull(),
    action: text('action').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    dueAt: ts('due_at').notNull(),
    doneAt: ts('done_at'),
    createdAt: createdAt(),
  },
  (t) => [index('sandbox_esign_actions_due_idx').on(t.dueAt)],
);
