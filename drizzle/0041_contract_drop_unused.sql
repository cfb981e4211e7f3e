-- Contract release (docs/guides/operations.md, "Schema changes across a rolling deploy"): drops what
-- the previous release (the one that added 0037) no longer uses. Written by hand, every drop with
-- IF EXISTS:
-- 1. The columns the schema stopped naming in 0037 (drizzle-kit generates nothing for them: the
--    snapshot has not had them since). No node of the release before 0037, which selected them, runs.
-- 2. The partial indexes of the sweeps that became timers: neither release sweeps them (a timer's
--    handler re-reads its row by id).
-- 3. Contract, step one for the sandbox simulators' old queues: the schema no longer names
--    sandbox_screening_jobs nor sandbox_travel_rule_jobs.due_at/delivered_at, so this release neither
--    reads nor writes them (the timers' backfill over them is gone). The previous release still
--    reads them in its backfill and marks a row sent, so they stay in the database until the next
--    release drops them (DROP TABLE IF EXISTS / ALTER TABLE ... DROP COLUMN IF EXISTS); only their
--    partial indexes go now (in 2).
ALTER TABLE "invoices" DROP COLUMN IF EXISTS "email_next_at";--> statement-breakpoint
ALTER TABLE "notifications" DROP COLUMN IF EXISTS "email_next_at";--> statement-breakpoint
ALTER TABLE "contract_requests" DROP COLUMN IF EXISTS "envelope_attempts";--> statement-breakpoint
ALTER TABLE "contract_requests" DROP COLUMN IF EXISTS "next_envelope_attempt_at";--> statement-breakpoint
DROP INDEX IF EXISTS "transactions_pending_expiry_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "verification_sessions_pending_expiry_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "tickets_resolved_due_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "invoices_open_due_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "monitored_tx_remediation_due_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "contract_requests_expiry_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "contract_requests_reminder_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "payment_schedule_instalments_issue_due_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "payment_schedule_instalments_grace_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "payment_schedule_instalments_intent_cancel_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "sandbox_screening_jobs_due_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "sandbox_travel_rule_jobs_due_idx";
