CREATE TABLE "bulk_payment_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"status" text NOT NULL,
	"source" text NOT NULL,
	"file_name" text,
	"defaults" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"create_missing_users" boolean DEFAULT false NOT NULL,
	"warnings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"columns" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by_account_id" uuid,
	"cancel_created_links" boolean DEFAULT false NOT NULL,
	"cancel_links_due_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"preview_expires_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"canceled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bulk_payment_rows" (
	"bulk_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"row_number" integer NOT NULL,
	"reference" text,
	"status" text NOT NULL,
	"input" jsonb NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"body" jsonb,
	"payer_user_id" uuid,
	"transaction_id" uuid,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bulk_payment_rows_pk" PRIMARY KEY("bulk_id","row_number")
);
--> statement-breakpoint
CREATE TABLE "payment_schedule_emails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"instalment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"link_number" integer NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_schedule_instalments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"schedule_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"sequence" integer NOT NULL,
	"amount" numeric NOT NULL,
	"due_date" text NOT NULL,
	"issue_at" timestamp with time zone NOT NULL,
	"grace_end_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"transaction_id" uuid,
	"checkout_url" text,
	"link_number" integer DEFAULT 0 NOT NULL,
	"issue_error" text,
	"issue_due_at" timestamp with time zone,
	"intent_cancel_due_at" timestamp with time zone,
	"intent_to_cancel" uuid,
	"paid_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_schedules" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"status" text NOT NULL,
	"project_id" uuid NOT NULL,
	"user_id" uuid,
	"business_customer_id" uuid,
	"currency" text NOT NULL,
	"total_amount" numeric NOT NULL,
	"description" text,
	"issue_days_before" integer NOT NULL,
	"grace_days" integer NOT NULL,
	"delivery" text NOT NULL,
	"reminders" boolean NOT NULL,
	"max_links" integer NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cancel_reason" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"canceled_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "bulk_payment_jobs" ADD CONSTRAINT "bulk_payment_jobs_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bulk_payment_rows" ADD CONSTRAINT "bulk_payment_rows_bulk_id_bulk_payment_jobs_id_fk" FOREIGN KEY ("bulk_id") REFERENCES "public"."bulk_payment_jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bulk_payment_rows" ADD CONSTRAINT "bulk_payment_rows_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_schedule_emails" ADD CONSTRAINT "payment_schedule_emails_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_schedule_emails" ADD CONSTRAINT "payment_schedule_emails_instalment_id_payment_schedule_instalments_id_fk" FOREIGN KEY ("instalment_id") REFERENCES "public"."payment_schedule_instalments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_schedule_instalments" ADD CONSTRAINT "payment_schedule_instalments_schedule_id_payment_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."payment_schedules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_schedule_instalments" ADD CONSTRAINT "payment_schedule_instalments_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_schedules" ADD CONSTRAINT "payment_schedules_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bulk_payment_jobs_client_created_idx" ON "bulk_payment_jobs" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "bulk_payment_jobs_client_status_idx" ON "bulk_payment_jobs" USING btree ("client_id","status","created_at" desc);--> statement-breakpoint
CREATE INDEX "bulk_payment_jobs_active_idx" ON "bulk_payment_jobs" USING btree ("status","updated_at") WHERE "bulk_payment_jobs"."status" in ('queued', 'processing');--> statement-breakpoint
CREATE INDEX "bulk_payment_jobs_preview_expiry_idx" ON "bulk_payment_jobs" USING btree ("preview_expires_at") WHERE "bulk_payment_jobs"."status" = 'previewed';--> statement-breakpoint
CREATE INDEX "bulk_payment_jobs_cancel_links_idx" ON "bulk_payment_jobs" USING btree ("cancel_links_due_at") WHERE "bulk_payment_jobs"."cancel_links_due_at" is not null;--> statement-breakpoint
CREATE INDEX "bulk_payment_rows_status_idx" ON "bulk_payment_rows" USING btree ("bulk_id","status","row_number");--> statement-breakpoint
CREATE INDEX "bulk_payment_rows_pending_idx" ON "bulk_payment_rows" USING btree ("lease_until") WHERE "bulk_payment_rows"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "payment_schedule_emails_due_idx" ON "payment_schedule_emails" USING btree ("due_at") WHERE "payment_schedule_emails"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "payment_schedule_emails_instalment_idx" ON "payment_schedule_emails" USING btree ("instalment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_schedule_emails_once_uq" ON "payment_schedule_emails" USING btree ("instalment_id","kind","link_number");--> statement-breakpoint
CREATE INDEX "payment_schedule_instalments_schedule_idx" ON "payment_schedule_instalments" USING btree ("schedule_id","sequence");--> statement-breakpoint
CREATE INDEX "payment_schedule_instalments_transaction_idx" ON "payment_schedule_instalments" USING btree ("transaction_id");--> statement-breakpoint
CREATE INDEX "payment_schedule_instalments_issue_due_idx" ON "payment_schedule_instalments" USING btree ("issue_due_at") WHERE "payment_schedule_instalments"."issue_due_at" is not null;--> statement-breakpoint
CREATE INDEX "payment_schedule_instalments_grace_idx" ON "payment_schedule_instalments" USING btree ("grace_end_at") WHERE "payment_schedule_instalments"."status" = 'issued';--> statement-breakpoint
CREATE INDEX "payment_schedule_instalments_intent_cancel_idx" ON "payment_schedule_instalments" USING btree ("intent_cancel_due_at") WHERE "payment_schedule_instalments"."intent_cancel_due_at" is not null;--> statement-breakpoint
CREATE INDEX "payment_schedules_client_created_idx" ON "payment_schedules" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "payment_schedules_client_status_idx" ON "payment_schedules" USING btree ("client_id","status","created_at" desc);--> statement-breakpoint
CREATE INDEX "payment_schedules_client_project_idx" ON "payment_schedules" USING btree ("client_id","project_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "payment_schedules_client_user_idx" ON "payment_schedules" USING btree ("client_id","user_id","created_at" desc) WHERE "payment_schedules"."user_id" is not null;--> statement-breakpoint
CREATE INDEX "payment_schedules_client_business_idx" ON "payment_schedules" USING btree ("client_id","business_customer_id","created_at" desc) WHERE "payment_schedules"."business_customer_id" is not null;