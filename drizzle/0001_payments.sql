CREATE TABLE "sandbox_bank_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"ref_id" text NOT NULL,
	"transaction_id" uuid NOT NULL,
	"amount" text NOT NULL,
	"currency" text NOT NULL,
	"merchant_name" text NOT NULL,
	"bank_id" text,
	"transfer_id" text,
	"provider_status" text DEFAULT 'initiated' NOT NULL,
	"return_url" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_idempotency_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text DEFAULT 'processing' NOT NULL,
	"transaction_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "transaction_status_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"provider_status" text,
	"reconciliation_state" text NOT NULL,
	"kind" text NOT NULL,
	"reason" text,
	"ref_id" text,
	"actor_type" text,
	"actor_account_id" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"user_id" uuid,
	"business_customer_id" uuid,
	"contract_request_id" uuid,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"description" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"provider_status" text,
	"reconciliation_state" text DEFAULT 'none' NOT NULL,
	"status_reason" text,
	"ref_id" text NOT NULL,
	"transfer_id" text,
	"bank_id" text,
	"checkout_token" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_refresh_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payment_idempotency_keys" ADD CONSTRAINT "payment_idempotency_keys_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_idempotency_keys" ADD CONSTRAINT "payment_idempotency_keys_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_status_events" ADD CONSTRAINT "transaction_status_events_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_status_events" ADD CONSTRAINT "transaction_status_events_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_user_id_kyc_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."kyc_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_business_customer_id_business_customers_id_fk" FOREIGN KEY ("business_customer_id") REFERENCES "public"."business_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_bank_sessions_ref_uq" ON "sandbox_bank_sessions" USING btree ("ref_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_bank_sessions_transfer_uq" ON "sandbox_bank_sessions" USING btree ("transfer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_idempotency_keys_client_key_uq" ON "payment_idempotency_keys" USING btree ("client_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "transaction_status_events_tx_idx" ON "transaction_status_events" USING btree ("transaction_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_checkout_token_uq" ON "transactions" USING btree ("checkout_token");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_ref_id_uq" ON "transactions" USING btree ("ref_id");--> statement-breakpoint
CREATE INDEX "transactions_client_created_idx" ON "transactions" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "transactions_client_status_created_idx" ON "transactions" USING btree ("client_id","status","created_at" desc);--> statement-breakpoint
CREATE INDEX "transactions_client_project_created_idx" ON "transactions" USING btree ("client_id","project_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "transactions_client_user_created_idx" ON "transactions" USING btree ("client_id","user_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "transactions_pending_expiry_idx" ON "transactions" USING btree ("expires_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "transactions_processing_expiry_idx" ON "transactions" USING btree ("expires_at") WHERE status = 'processing';