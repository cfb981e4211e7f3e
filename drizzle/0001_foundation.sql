CREATE TABLE "activity_logs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"action" text NOT NULL,
	"outcome" text DEFAULT 'success' NOT NULL,
	"actor_type" text NOT NULL,
	"actor_account_id" uuid,
	"actor_email" text,
	"actor_credential_id" uuid,
	"actor_credential_label" text,
	"target_type" text,
	"target_id" text,
	"target_label" text,
	"request_id" text,
	"ip" text,
	"user_agent" text,
	"method" text,
	"path" text,
	"changes" jsonb,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text DEFAULT 'processing' NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"account_id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"email" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"in_app" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"category" text NOT NULL,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"link" jsonb,
	"in_app" boolean DEFAULT true NOT NULL,
	"email_state" text DEFAULT 'none' NOT NULL,
	"email_attempts" integer DEFAULT 0 NOT NULL,
	"email_next_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seen_at" timestamp with time zone,
	"read_at" timestamp with time zone,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "payment_idempotency_keys_client_key_uq";--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "features" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_idempotency_keys" ADD COLUMN "scope" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "origin_type" text DEFAULT 'paylink' NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "origin_id" uuid;--> statement-breakpoint
ALTER TABLE "activity_logs" ADD CONSTRAINT "activity_logs_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_logs_client_occurred_idx" ON "activity_logs" USING btree ("client_id","occurred_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "activity_logs_client_action_idx" ON "activity_logs" USING btree ("client_id","action","occurred_at" desc);--> statement-breakpoint
CREATE INDEX "activity_logs_client_target_idx" ON "activity_logs" USING btree ("client_id","target_type","target_id","occurred_at" desc);--> statement-breakpoint
CREATE INDEX "activity_logs_client_actor_idx" ON "activity_logs" USING btree ("client_id","actor_account_id","occurred_at" desc);--> statement-breakpoint
CREATE INDEX "activity_logs_occurred_idx" ON "activity_logs" USING btree ("occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_records_client_scope_key_uq" ON "idempotency_records" USING btree ("client_id","scope","idempotency_key");--> statement-breakpoint
CREATE INDEX "idempotency_records_created_idx" ON "idempotency_records" USING btree ("created_at") WHERE state = 'completed';--> statement-breakpoint
CREATE INDEX "notifications_account_created_idx" ON "notifications" USING btree ("account_id","created_at" desc,"id" desc) WHERE in_app;--> statement-breakpoint
CREATE INDEX "notifications_email_due_idx" ON "notifications" USING btree ("email_next_at") WHERE email_state = 'pending';--> statement-breakpoint
CREATE INDEX "notifications_retention_idx" ON "notifications" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_idempotency_keys_client_scope_key_uq" ON "payment_idempotency_keys" USING btree ("client_id","scope","idempotency_key");--> statement-breakpoint
CREATE INDEX "transactions_client_origin_created_idx" ON "transactions" USING btree ("client_id","origin_type","created_at" desc);--> statement-breakpoint
CREATE INDEX "transactions_client_contract_idx" ON "transactions" USING btree ("client_id","contract_request_id") WHERE contract_request_id is not null;