DROP INDEX "monitoring_allowlist_uq";--> statement-breakpoint
ALTER TABLE "monitoring_sanctions_allowlist" ADD COLUMN "list" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "monitoring_sanctions_allowlist" ADD COLUMN "entry_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "monitoring_sanctions_allowlist" ADD COLUMN "list_version" text;--> statement-breakpoint
CREATE UNIQUE INDEX "monitoring_allowlist_hit_uq" ON "monitoring_sanctions_allowlist" USING btree ("client_id","name_key","identifier","list","entry_id");--> statement-breakpoint
-- Rows cleared before hits were keyed ("list" = '') are copied to one keyed row per hit of the
-- transaction they were cleared on whose screened party (or, on the sandbox list, matched name) is
-- the row's name. The old rows stay (expand only) and clear nothing by themselves.
INSERT INTO "monitoring_sanctions_allowlist" ("id", "client_id", "name_key", "identifier", "list", "entry_id", "list_version", "monitored_transaction_id", "created_by_account_id", "created_at")
SELECT gen_random_uuid(), a."client_id", a."name_key", a."identifier", m->>'list', coalesce(m->>'entry_id', ''), m->>'list_version', a."monitored_transaction_id", a."created_by_account_id", a."created_at"
FROM "monitoring_sanctions_allowlist" a
JOIN "monitored_transactions" t ON t."id" = a."monitored_transaction_id" AND t."client_id" = a."client_id"
CROSS JOIN LATERAL jsonb_array_elements(t."sanctions_matches") m
WHERE a."list" = ''
  AND coalesce(m->>'list', '') <> ''
  AND regexp_replace(lower(btrim(coalesce(m->>'screened_name', m->>'matched_name'))), '\s+', ' ', 'g') = a."name_key"
ON CONFLICT DO NOTHING;
