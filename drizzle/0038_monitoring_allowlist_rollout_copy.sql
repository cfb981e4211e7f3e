-- Expand, for the rolling deploy of the allowlist keyed by hit (0033). A node of the previous release
-- still clears a match the old way: it inserts (client_id, name_key, identifier, ...) with ON CONFLICT
-- DO NOTHING (no conflict target, so 0033's new unique index accepts it, "list" and "entry_id" taking
-- their '' defaults), and such a row clears nothing on this release's nodes. This trigger gives every
-- row inserted the old way ("list" = '') at once the keyed rows this release would have written for
-- the cleared transaction (clearedParties in monitoring.reviews.ts): one per hit whose screened party
-- or matched name is the row's name (the previous release keyed on the matched name), keyed on the
-- screened party's name with its identifier. Contract (next release, once no node of the previous
-- release runs): drop the trigger and the function (docs/guides/operations.md, "Schema changes
-- across a rolling deploy").
CREATE OR REPLACE FUNCTION monitoring_allowlist_copy_unkeyed() RETURNS trigger AS $$
BEGIN
  INSERT INTO "monitoring_sanctions_allowlist" ("id", "client_id", "name_key", "identifier", "list", "entry_id", "list_version", "monitored_transaction_id", "created_by_account_id", "created_at")
  SELECT gen_random_uuid(), NEW."client_id", k.key,
    CASE WHEN k.key = regexp_replace(lower(btrim(t."counterparty"->>'name')), '\s+', ' ', 'g')
      THEN coalesce(t."counterparty"->>'account_identifier', t."counterparty"->'wallet'->>'address', '')
      ELSE t."subject_key" END,
    m->>'list', coalesce(m->>'entry_id', ''), m->>'list_version', NEW."monitored_transaction_id", NEW."created_by_account_id", NEW."created_at"
  FROM "monitored_transactions" t
  CROSS JOIN LATERAL jsonb_array_elements(t."sanctions_matches") m
  CROSS JOIN LATERAL (SELECT regexp_replace(lower(btrim(coalesce(m->>'screened_name', m->>'matched_name'))), '\s+', ' ', 'g') AS key) k
  WHERE t."id" = NEW."monitored_transaction_id" AND t."client_id" = NEW."client_id"
    AND coalesce(m->>'list', '') <> ''
    AND (k.key = NEW."name_key" OR regexp_replace(lower(btrim(m->>'matched_name')), '\s+', ' ', 'g') = NEW."name_key")
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;--> statement-breakpoint
DROP TRIGGER IF EXISTS monitoring_allowlist_copy_unkeyed ON "monitoring_sanctions_allowlist";--> statement-breakpoint
CREATE TRIGGER monitoring_allowlist_copy_unkeyed AFTER INSERT ON "monitoring_sanctions_allowlist"
  FOR EACH ROW WHEN (NEW."list" = '') EXECUTE FUNCTION monitoring_allowlist_copy_unkeyed();
