-- Exact transaction counts per (client, status) for GET /transactions' pagination.total, kept by
-- statement-level triggers in the writing transaction (see src/db/schema/transaction-count-deltas.ts).
CREATE OR REPLACE FUNCTION transaction_count_deltas_write() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO transaction_count_deltas (client_id, status, n)
      SELECT client_id, status, count(*) FROM new_rows GROUP BY client_id, status;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO transaction_count_deltas (client_id, status, n)
      SELECT client_id, status, sum(d) FROM (
        SELECT client_id, status, 1 AS d FROM new_rows
        UNION ALL
        SELECT client_id, status, -1 AS d FROM old_rows
      ) x GROUP BY client_id, status HAVING sum(d) <> 0;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO transaction_count_deltas (client_id, status, n)
      SELECT client_id, status, -count(*) FROM old_rows GROUP BY client_id, status;
  ELSE
    DELETE FROM transaction_count_deltas;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER transactions_count_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_count_deltas_write();
--> statement-breakpoint
CREATE TRIGGER transactions_count_update AFTER UPDATE ON transactions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_count_deltas_write();
--> statement-breakpoint
CREATE TRIGGER transactions_count_delete AFTER DELETE ON transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_count_deltas_write();
--> statement-breakpoint
CREATE TRIGGER transactions_count_truncate AFTER TRUNCATE ON transactions
  FOR EACH STATEMENT EXECUTE FUNCTION transaction_count_deltas_write();
--> statement-breakpoint
-- Existing rows (the triggers above already hold the table's write lock in this transaction).
INSERT INTO transaction_count_deltas (client_id, status, n)
  SELECT client_id, status, count(*) FROM transactions GROUP BY client_id, status;
