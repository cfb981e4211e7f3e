CREATE TABLE "staff_login_attempts" (
	"email_key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "business_customers_client_status_idx" ON "business_customers" USING btree ("client_id","kyb_status","created_at" desc);--> statement-breakpoint
CREATE INDEX "opcos_status_created_idx" ON "opcos" USING btree ("status","created_at" desc);--> statement-breakpoint
CREATE INDEX "projects_opco_idx" ON "projects" USING btree ("opco_id");