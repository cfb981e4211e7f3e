CREATE TABLE "contract_audit_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"request_id" uuid NOT NULL,
	"participant_id" uuid,
	"type" text NOT NULL,
	"ip" text,
	"user_agent" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"seq" integer GENERATED ALWAYS AS IDENTITY (sequence name "contract_audit_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1)
);
--> statement-breakpoint
CREATE TABLE "contract_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"request_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"template_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"file_name" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"fields" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contract_participants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"request_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"role" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"user_id" uuid,
	"business_customer_id" uuid,
	"signing_order" integer NOT NULL,
	"auth" text NOT NULL,
	"status" text NOT NULL,
	"token_hash" text,
	"token_enc" text,
	"otp_hash" text,
	"otp_expires_at" timestamp with time zone,
	"otp_attempts" integer DEFAULT 0 NOT NULL,
	"otp_verified_at" timestamp with time zone,
	"signed_values" jsonb,
	"last_reminded_at" timestamp with time zone,
	"turn_started_at" timestamp with time zone,
	"viewed_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"declined_at" timestamp with time zone,
	"decline_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contract_requests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"title" text NOT NULL,
	"message" text,
	"status" text NOT NULL,
	"status_reason" text,
	"flow_id" uuid,
	"template_ids" jsonb NOT NULL,
	"template_versions" jsonb NOT NULL,
	"external_reference" text,
	"delivery" text NOT NULL,
	"redirect_url" text,
	"field_values" jsonb NOT NULL,
	"cc_recipients" jsonb NOT NULL,
	"payment" jsonb,
	"metadata" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"reminder_interval_days" integer,
	"next_reminder_at" timestamp with time zone,
	"envelope_ref" text,
	"envelope_attempts" integer DEFAULT 0 NOT NULL,
	"next_envelope_attempt_at" timestamp with time zone,
	"provider_revision" integer DEFAULT 0 NOT NULL,
	"view_token_hash" text,
	"view_token_enc" text,
	"certificate_sha256" text,
	"certificate" "bytea",
	"payment_due" integer DEFAULT 0 NOT NULL,
	"created_by_actor_type" text,
	"created_by_account_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"declined_at" timestamp with time zone,
	"voided_at" timestamp with time zone,
	"void_reason" text
);
--> statement-breakpoint
CREATE TABLE "contract_flows" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"status" text NOT NULL,
	"template_ids" jsonb NOT NULL,
	"expires_in_days" integer NOT NULL,
	"reminder_interval_days" integer,
	"delivery" text NOT NULL,
	"cc_recipients" jsonb NOT NULL,
	"payment" jsonb,
	"activated_at" timestamp with time zone,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contract_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"file_name" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"page_count" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"roles" jsonb NOT NULL,
	"fields" jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"is_ad_hoc" boolean DEFAULT false NOT NULL,
	"used_at" timestamp with time zone,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_esign_actions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"envelope_ref" text NOT NULL,
	"participant_id" uuid NOT NULL,
	"action" text NOT NULL,
	"payload" jsonb NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"done_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_esign_envelopes" (
	"ref" text PRIMARY KEY NOT NULL,
	"external_id" uuid NOT NULL,
	"title" text NOT NULL,
	"status" text NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contract_audit_events" ADD CONSTRAINT "contract_audit_events_request_id_contract_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."contract_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contract_documents" ADD CONSTRAINT "contract_documents_request_id_contract_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."contract_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contract_participants" ADD CONSTRAINT "contract_participants_request_id_contract_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."contract_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contract_requests" ADD CONSTRAINT "contract_requests_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contract_flows" ADD CONSTRAINT "contract_flows_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contract_templates" ADD CONSTRAINT "contract_templates_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contract_audit_events_request_idx" ON "contract_audit_events" USING btree ("request_id","occurred_at","seq");--> statement-breakpoint
CREATE INDEX "contract_documents_request_idx" ON "contract_documents" USING btree ("request_id","kind","position");--> statement-breakpoint
CREATE INDEX "contract_participants_request_idx" ON "contract_participants" USING btree ("request_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "contract_participants_token_uq" ON "contract_participants" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "contract_participants_client_email_idx" ON "contract_participants" USING btree ("client_id","email");--> statement-breakpoint
CREATE INDEX "contract_requests_client_created_idx" ON "contract_requests" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "contract_requests_expiry_idx" ON "contract_requests" USING btree ("expires_at") WHERE status in ('sent','in_progress');--> statement-breakpoint
CREATE INDEX "contract_requests_reminder_idx" ON "contract_requests" USING btree ("next_reminder_at") WHERE next_reminder_at is not null;--> statement-breakpoint
CREATE INDEX "contract_requests_pending_idx" ON "contract_requests" USING btree ("next_envelope_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "contract_requests_envelope_uq" ON "contract_requests" USING btree ("envelope_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "contract_requests_view_token_uq" ON "contract_requests" USING btree ("view_token_hash");--> statement-breakpoint
CREATE INDEX "contract_flows_client_created_idx" ON "contract_flows" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "contract_templates_client_created_idx" ON "contract_templates" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "contract_templates_client_updated_idx" ON "contract_templates" USING btree ("client_id","updated_at") WHERE is_ad_hoc = false;--> statement-breakpoint
CREATE INDEX "sandbox_esign_actions_due_idx" ON "sandbox_esign_actions" USING btree ("due_at");