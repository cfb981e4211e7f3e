CREATE TABLE "recurring_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"attempt_number" integer NOT NULL,
	"trigger" text NOT NULL,
	"retry_of_attempt" integer,
	"transaction_id" uuid,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" text,
	"failure_reason" text,
	"launch_due_at" timestamp with time zone,
	"launch_error" text
);
--> statement-breakpoint
CREATE TABLE "recurring_payments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"user_id" uuid,
	"business_customer_id" uuid,
	"status" text NOT NULL,
	"status_reason" text,
	"currency" text NOT NULL,
	"amount" numeric,
	"description" text,
	"reference" text,
	"schedule" jsonb,
	"retry_policy" jsonb NOT NULL,
	"redirect_url" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"runs_count" integer DEFAULT 0 NOT NULL,
	"scheduled_count" integer DEFAULT 0 NOT NULL,
	"paused_until" timestamp with time zone,
	"canceled_at" timestamp with time zone,
	"max_amount_per_payment" numeric NOT NULL,
	"periodic_amount" numeric NOT NULL,
	"period" text NOT NULL,
	"alignment" text NOT NULL,
	"valid_from" timestamp with time zone NOT NULL,
	"valid_to" timestamp with time zone,
	"mandate_status" text NOT NULL,
	"bank_id" text,
	"bank_name" text,
	"mandate_ref" text,
	"authorized_at" timestamp with time zone,
	"authorization_token" text NOT NULL,
	"authorization_expires_at" timestamp with time zone NOT NULL,
	"mandate_revoke_due_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recurring_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"definition_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"sequence" integer NOT NULL,
	"kind" text NOT NULL,
	"scheduled_for" timestamp with time zone NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"description" text,
	"status" text NOT NULL,
	"transaction_id" uuid,
	"failure_reason" text,
	"will_retry" boolean DEFAULT false NOT NULL,
	"next_retry_at" timestamp with time zone,
	"auto_retries" integer DEFAULT 0 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_bank_mandate_payments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"ref_id" text NOT NULL,
	"mandate_ref" text NOT NULL,
	"attempt_number" integer NOT NULL,
	"outcome" text,
	"settle_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_bank_mandates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"mandate_ref" text NOT NULL,
	"bank_id" text NOT NULL,
	"merchant_name" text NOT NULL,
	"currency" text NOT NULL,
	"max_amount_per_payment" text NOT NULL,
	"periodic_limit" text NOT NULL,
	"status" text NOT NULL,
	"return_url" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "recurring_attempts" ADD CONSTRAINT "recurring_attempts_run_id_recurring_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."recurring_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_payments" ADD CONSTRAINT "recurring_payments_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_runs" ADD CONSTRAINT "recurring_runs_definition_id_recurring_payments_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."recurring_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_runs" ADD CONSTRAINT "recurring_runs_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_attempts_run_number_uq" ON "recurring_attempts" USING btree ("run_id","attempt_number");--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_attempts_retry_of_uq" ON "recurring_attempts" USING btree ("run_id","retry_of_attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_attempts_transaction_uq" ON "recurring_attempts" USING btree ("transaction_id");--> statement-breakpoint
CREATE INDEX "recurring_attempts_launch_due_idx" ON "recurring_attempts" USING btree ("launch_due_at") WHERE "recurring_attempts"."launch_due_at" is not null;--> statement-breakpoint
CREATE INDEX "recurring_payments_client_idx" ON "recurring_payments" USING btree ("client_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_payments_token_uq" ON "recurring_payments" USING btree ("authorization_token");--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_payments_mandate_ref_uq" ON "recurring_payments" USING btree ("mandate_ref");--> statement-breakpoint
CREATE INDEX "recurring_payments_auth_expiry_idx" ON "recurring_payments" USING btree ("authorization_expires_at") WHERE "recurring_payments"."status" = 'pending_authorization';--> statement-breakpoint
CREATE INDEX "recurring_payments_paused_idx" ON "recurring_payments" USING btree ("paused_until") WHERE "recurring_payments"."status" = 'paused';--> statement-breakpoint
CREATE INDEX "recurring_payments_valid_to_idx" ON "recurring_payments" USING btree ("valid_to") WHERE "recurring_payments"."status" in ('active', 'paused');--> statement-breakpoint
CREATE INDEX "recurring_payments_revoke_due_idx" ON "recurring_payments" USING btree ("mandate_revoke_due_at") WHERE "recurring_payments"."mandate_revoke_due_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_runs_definition_slot_uq" ON "recurring_runs" USING btree ("definition_id","scheduled_for") WHERE "recurring_runs"."kind" = 'scheduled';--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_runs_definition_sequence_uq" ON "recurring_runs" USING btree ("definition_id","sequence");--> statement-breakpoint
CREATE INDEX "recurring_runs_definition_idx" ON "recurring_runs" USING btree ("definition_id","created_at");--> statement-breakpoint
CREATE INDEX "recurring_runs_due_idx" ON "recurring_runs" USING btree ("scheduled_for") WHERE "recurring_runs"."status" = 'scheduled';--> statement-breakpoint
CREATE INDEX "recurring_runs_retry_due_idx" ON "recurring_runs" USING btree ("next_retry_at") WHERE "recurring_runs"."status" = 'retry_scheduled';--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_bank_mandate_payments_ref_uq" ON "sandbox_bank_mandate_payments" USING btree ("ref_id");--> statement-breakpoint
CREATE INDEX "sandbox_bank_mandate_payments_settle_idx" ON "sandbox_bank_mandate_payments" USING btree ("settle_at") WHERE "sandbox_bank_mandate_payments"."settle_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_bank_mandates_ref_uq" ON "sandbox_bank_mandates" USING btree ("mandate_ref");