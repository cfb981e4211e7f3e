CREATE TABLE "sandbox_travel_rule_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subject_ref" text NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb,
	"due_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "travel_rule_settings" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"threshold_amount" numeric NOT NULL,
	"threshold_currency" text NOT NULL,
	"originator_vasp" jsonb,
	"screen_counterparty_wallet" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "travel_rule_transfers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"direction" text NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"asset" text NOT NULL,
	"chain" text NOT NULL,
	"amount" numeric NOT NULL,
	"fiat_amount" numeric NOT NULL,
	"fiat_currency" text NOT NULL,
	"threshold_applies" boolean NOT NULL,
	"originator" jsonb NOT NULL,
	"beneficiary" jsonb NOT NULL,
	"originator_vasp" jsonb,
	"beneficiary_vasp" jsonb,
	"counterparty_address" text NOT NULL,
	"counterparty_hosted" boolean,
	"wallet_id" uuid,
	"screening_id" uuid,
	"ownership_request_id" uuid,
	"repair_fields" jsonb,
	"tx_hash" text,
	"name_match" text,
	"justification" text,
	"client_reference" text,
	"user_id" uuid,
	"business_customer_id" uuid,
	"metadata" jsonb,
	"network_ref" text,
	"last_revision" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"accepted_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "travel_rule_settings" ADD CONSTRAINT "travel_rule_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "travel_rule_transfers" ADD CONSTRAINT "travel_rule_transfers_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sandbox_travel_rule_jobs_subject_idx" ON "sandbox_travel_rule_jobs" USING btree ("subject_ref");--> statement-breakpoint
CREATE INDEX "sandbox_travel_rule_jobs_due_idx" ON "sandbox_travel_rule_jobs" USING btree ("due_at") WHERE "sandbox_travel_rule_jobs"."delivered_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "travel_rule_transfers_client_ref_uq" ON "travel_rule_transfers" USING btree ("client_id","client_reference");--> statement-breakpoint
CREATE UNIQUE INDEX "travel_rule_transfers_network_ref_uq" ON "travel_rule_transfers" USING btree ("network_ref");--> statement-breakpoint
CREATE INDEX "travel_rule_transfers_client_created_idx" ON "travel_rule_transfers" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "travel_rule_transfers_expiry_idx" ON "travel_rule_transfers" USING btree ("expires_at") WHERE "travel_rule_transfers"."status" in ('awaiting_counterparty', 'needs_repair', 'awaiting_review');--> statement-breakpoint
CREATE INDEX "travel_rule_transfers_ownership_idx" ON "travel_rule_transfers" USING btree ("ownership_request_id");