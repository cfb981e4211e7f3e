ALTER TABLE "refunds" ADD COLUMN "reconciliation_state" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "review_reason" text;--> statement-breakpoint
CREATE INDEX "refunds_client_review_created_idx" ON "refunds" USING btree ("client_id","created_at" desc) WHERE reconciliation_state = 'manual_review_required';