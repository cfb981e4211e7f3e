-- Contract, step one (docs/guides/operations.md, "Schema changes across a rolling deploy"): the
-- schema no longer names invoices.email_next_at, notifications.email_next_at,
-- contract_requests.envelope_attempts and contract_requests.next_envelope_attempt_at, so this
-- release neither reads nor writes them. The previous release still selects them, so the columns
-- stay until the next release drops them (a custom migration: ALTER TABLE ... DROP COLUMN IF EXISTS).
SELECT 1;
