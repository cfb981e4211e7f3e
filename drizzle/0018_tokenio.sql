ALTER TABLE "opcos" ADD COLUMN "sub_tpp_registration_id" text;--> statement-breakpoint
ALTER TABLE "opcos" ADD COLUMN "network_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "network_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "network_checks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "opcos_network_check_idx" ON "opcos" USING btree ("network_check_at") WHERE status = 'awaiting_approval';--> statement-breakpoint
CREATE INDEX "transactions_network_check_idx" ON "transactions" USING btree ("network_check_at") WHERE status in ('pending', 'processing') and network_check_at is not null;