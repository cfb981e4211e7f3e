ALTER TABLE "contract_participants" ADD COLUMN "provider_recipient_ref" text;--> statement-breakpoint
ALTER TABLE "contract_requests" ADD COLUMN "provider_checked_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "contract_requests_provider_check_idx" ON "contract_requests" USING btree ("provider_checked_at") WHERE status in ('sent','in_progress') and envelope_ref is not null;