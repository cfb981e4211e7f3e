CREATE TABLE "sandbox_screening_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subject_ref" text NOT NULL,
	"payload" jsonb,
	"due_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "screening_wallets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"normalized_address" text NOT NULL,
	"label" text,
	"user_id" uuid,
	"business_customer_id" uuid,
	"monitored" boolean DEFAULT false NOT NULL,
	"risk_level" text,
	"risk_score" integer,
	"sanctions_hit" boolean,
	"latest_screening_id" uuid,
	"last_screened_at" timestamp with time zone,
	"next_rescreen_at" timestamp with time zone,
	"ownership_status" text DEFAULT 'unverified' NOT NULL,
	"ownership_method" text,
	"ownership_verified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_screenings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"wallet_id" uuid NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"asset" text,
	"status" text NOT NULL,
	"risk_level" text,
	"risk_score" integer,
	"sanctions_hit" boolean,
	"categories" jsonb,
	"exposures" jsonb,
	"cluster" jsonb,
	"risk_reasons" jsonb,
	"previous_risk_level" text,
	"client_reference" text,
	"user_id" uuid,
	"business_customer_id" uuid,
	"trigger" text NOT NULL,
	"failure_reason" text,
	"provider_revision" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "wallet_ownership_requests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"wallet_id" uuid NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"status" text NOT NULL,
	"methods" jsonb NOT NULL,
	"method" text,
	"user_id" uuid,
	"business_customer_id" uuid,
	"token" text NOT NULL,
	"challenge_message" text NOT NULL,
	"nonce" text NOT NULL,
	"satoshi_test" jsonb,
	"attempts_remaining" integer NOT NULL,
	"failure_reason" text,
	"redirect_url" text,
	"delivery" text NOT NULL,
	"client_reference" text,
	"declarant_name" text,
	"assurance" text,
	"previous_ownership_status" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"verified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "screening_wallets" ADD CONSTRAINT "screening_wallets_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_screenings" ADD CONSTRAINT "wallet_screenings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_screenings" ADD CONSTRAINT "wallet_screenings_wallet_id_screening_wallets_id_fk" FOREIGN KEY ("wallet_id") REFERENCES "public"."screening_wallets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_ownership_requests" ADD CONSTRAINT "wallet_ownership_requests_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_ownership_requests" ADD CONSTRAINT "wallet_ownership_requests_wallet_id_screening_wallets_id_fk" FOREIGN KEY ("wallet_id") REFERENCES "public"."screening_wallets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sandbox_screening_jobs_subject_idx" ON "sandbox_screening_jobs" USING btree ("subject_ref");--> statement-breakpoint
CREATE INDEX "sandbox_screening_jobs_due_idx" ON "sandbox_screening_jobs" USING btree ("due_at") WHERE "sandbox_screening_jobs"."delivered_at" is null and "sandbox_screening_jobs"."due_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "screening_wallets_client_address_uq" ON "screening_wallets" USING btree ("client_id","chain","normalized_address");--> statement-breakpoint
CREATE INDEX "screening_wallets_client_created_idx" ON "screening_wallets" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "screening_wallets_rescreen_idx" ON "screening_wallets" USING btree ("next_rescreen_at") WHERE "screening_wallets"."monitored" = true;--> statement-breakpoint
CREATE INDEX "wallet_screenings_wallet_created_idx" ON "wallet_screenings" USING btree ("wallet_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "wallet_screenings_client_created_idx" ON "wallet_screenings" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_ownership_requests_token_uq" ON "wallet_ownership_requests" USING btree ("token");--> statement-breakpoint
CREATE INDEX "wallet_ownership_requests_client_created_idx" ON "wallet_ownership_requests" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "wallet_ownership_requests_status_expires_idx" ON "wallet_ownership_requests" USING btree ("status","expires_at");