CREATE TABLE "monitored_transactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"client_reference" text NOT NULL,
	"payload_hash" text NOT NULL,
	"direction" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"currency" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"payment_method" text,
	"user_id" uuid,
	"business_customer_id" uuid,
	"customer" jsonb,
	"subject_key" text NOT NULL,
	"counterparty" jsonb NOT NULL,
	"transaction_id" uuid,
	"metadata" jsonb,
	"search_text" text NOT NULL,
	"decision" text NOT NULL,
	"decision_reason" text,
	"score" integer DEFAULT 0 NOT NULL,
	"rule_hits" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sanctions_hit" boolean DEFAULT false NOT NULL,
	"sanctions_matches" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"wallet_screening_id" uuid,
	"remediation_type" text,
	"remediation_status" text,
	"remediation_token" text,
	"remediation_expires_at" timestamp with time zone,
	"remediation_submitted_at" timestamp with time zone,
	"remediation_revoked_at" timestamp with time zone,
	"remediation_answers" jsonb,
	"policy_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "monitoring_policies" (
	"client_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"policy" jsonb NOT NULL,
	"updated_by_account_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "monitoring_policies_client_id_version_pk" PRIMARY KEY("client_id","version")
);
--> statement-breakpoint
CREATE TABLE "monitoring_reviews" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"monitored_transaction_id" uuid NOT NULL,
	"decision" text NOT NULL,
	"previous_decision" text NOT NULL,
	"note" text NOT NULL,
	"remediation_type" text,
	"cleared_sanctions_match" boolean DEFAULT false NOT NULL,
	"actor_type" text NOT NULL,
	"actor_account_id" uuid,
	"reviewed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "monitoring_sanctions_allowlist" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"name_key" text NOT NULL,
	"identifier" text NOT NULL,
	"monitored_transaction_id" uuid,
	"created_by_account_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "monitored_transactions" ADD CONSTRAINT "monitored_transactions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitoring_policies" ADD CONSTRAINT "monitoring_policies_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitoring_reviews" ADD CONSTRAINT "monitoring_reviews_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitoring_reviews" ADD CONSTRAINT "monitoring_reviews_monitored_transaction_id_monitored_transactions_id_fk" FOREIGN KEY ("monitored_transaction_id") REFERENCES "public"."monitored_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitoring_sanctions_allowlist" ADD CONSTRAINT "monitoring_sanctions_allowlist_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "monitored_tx_client_reference_uq" ON "monitored_transactions" USING btree ("client_id","client_reference");--> statement-breakpoint
CREATE INDEX "monitored_tx_client_created_idx" ON "monitored_transactions" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "monitored_tx_client_subject_occurred_idx" ON "monitored_transactions" USING btree ("client_id","subject_key","occurred_at");--> statement-breakpoint
CREATE INDEX "monitored_tx_client_decision_created_idx" ON "monitored_transactions" USING btree ("client_id","decision","created_at" desc);--> statement-breakpoint
CREATE UNIQUE INDEX "monitored_tx_remediation_token_uq" ON "monitored_transactions" USING btree ("remediation_token");--> statement-breakpoint
CREATE INDEX "monitored_tx_remediation_due_idx" ON "monitored_transactions" USING btree ("remediation_expires_at") WHERE remediation_status = 'pending' and decision = 'AWAITING_USER';--> statement-breakpoint
CREATE INDEX "monitoring_reviews_tx_idx" ON "monitoring_reviews" USING btree ("monitored_transaction_id","reviewed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "monitoring_allowlist_uq" ON "monitoring_sanctions_allowlist" USING btree ("client_id","name_key","identifier");