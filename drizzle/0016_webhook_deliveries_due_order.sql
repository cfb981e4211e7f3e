CREATE INDEX "webhook_deliveries_due_order_idx" ON "webhook_deliveries" USING btree ("next_attempt_at","id") WHERE "webhook_deliveries"."status" in ('pending', 'retrying');--> statement-breakpoint
DROP INDEX "webhook_deliveries_due_idx";
