-- An invoice PDF is rendered once at finalization and never changes (docs/guides/invoices.md):
-- UPDATE, DELETE and TRUNCATE of invoice_pdfs are refused by the database itself.
CREATE OR REPLACE FUNCTION invoice_pdfs_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'invoice_pdfs is immutable' USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER invoice_pdfs_no_update_delete BEFORE UPDATE OR DELETE ON invoice_pdfs
  FOR EACH ROW EXECUTE FUNCTION invoice_pdfs_immutable();
--> statement-breakpoint
CREATE TRIGGER invoice_pdfs_no_truncate BEFORE TRUNCATE ON invoice_pdfs
  FOR EACH STATEMENT EXECUTE FUNCTION invoice_pdfs_immutable();
