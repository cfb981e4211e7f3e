CREATE TABLE "ticket_number_counters" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tickets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"subject" text NOT NULL,
	"category" text NOT NULL,
	"priority" text NOT NULL,
	"status" text NOT NULL,
	"references" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"cc_emails" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by_actor_type" text NOT NULL,
	"created_by_account_id" uuid,
	"created_by_credential_id" uuid,
	"created_by_email" text,
	"follow_up_of" uuid,
	"environment" text NOT NULL,
	"assignee_staff_id" uuid,
	"message_count" integer DEFAULT 0 NOT NULL,
	"last_message_at" timestamp with time zone,
	"last_message_by" text,
	"satisfaction" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ticket_attachments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"ticket_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_emails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"ticket_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"recipient" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"ticket_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"author_type" text NOT NULL,
	"author_actor_type" text NOT NULL,
	"author_account_id" uuid,
	"author_staff_id" uuid,
	"author_name" text,
	"internal" boolean DEFAULT false NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"invoice_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"quantity" integer NOT NULL,
	"unit_amount" numeric NOT NULL,
	"amount" numeric NOT NULL,
	"tax_rate" numeric NOT NULL,
	"tax_amount" numeric NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_number_counters" (
	"prefix" text NOT NULL,
	"year" integer NOT NULL,
	"last_number" integer NOT NULL,
	CONSTRAINT "invoice_number_counters_prefix_year_pk" PRIMARY KEY("prefix","year")
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"number" text,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"due_in_days" integer NOT NULL,
	"issue_date" date,
	"due_date" date,
	"subtotal" numeric DEFAULT '0' NOT NULL,
	"tax_total" numeric DEFAULT '0' NOT NULL,
	"total" numeric DEFAULT '0' NOT NULL,
	"amount_paid" numeric DEFAULT '0' NOT NULL,
	"amount_due" numeric DEFAULT '0' NOT NULL,
	"purchase_order_number" text,
	"billing_details" jsonb,
	"payment_instructions" jsonb,
	"payment_link_state" text DEFAULT 'none' NOT NULL,
	"payment_link_attempts" integer DEFAULT 0 NOT NULL,
	"payment_link_next_at" timestamp with time zone,
	"payment_link_error" text,
	"payment_url" text,
	"transaction_id" uuid,
	"replaces_invoice_id" uuid,
	"finalized_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"payment_reference" text,
	"voided_at" timestamp with time zone,
	"void_reason" text,
	"uncollectible_at" timestamp with time zone,
	"sample" boolean DEFAULT false NOT NULL,
	"email_state" text DEFAULT 'none' NOT NULL,
	"email_recipient" text,
	"email_attempts" integer DEFAULT 0 NOT NULL,
	"email_next_at" timestamp with time zone,
	"email_last_error" text,
	"emailed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_pdfs" (
	"invoice_id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"content" "bytea" NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_price_lists" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"currency" text NOT NULL,
	"platform_fee_monthly" numeric NOT NULL,
	"transaction_success" numeric NOT NULL,
	"kyc_verification" numeric NOT NULL,
	"kyb_verification" numeric NOT NULL,
	"wallet_screening" numeric NOT NULL,
	"travel_rule_transfer" numeric NOT NULL,
	"contract_request" numeric NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_details" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"company_name" text NOT NULL,
	"address" jsonb,
	"vat_number" text,
	"billing_email" text NOT NULL,
	"purchase_order_number" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ticket_number_counters" ADD CONSTRAINT "ticket_number_counters_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_assignee_staff_id_staff_accounts_id_fk" FOREIGN KEY ("assignee_staff_id") REFERENCES "public"."staff_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_attachments" ADD CONSTRAINT "ticket_attachments_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_attachments" ADD CONSTRAINT "ticket_attachments_message_id_ticket_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_attachments" ADD CONSTRAINT "ticket_attachments_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_emails" ADD CONSTRAINT "ticket_emails_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_emails" ADD CONSTRAINT "ticket_emails_message_id_ticket_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_emails" ADD CONSTRAINT "ticket_emails_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD CONSTRAINT "ticket_messages_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD CONSTRAINT "ticket_messages_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD CONSTRAINT "ticket_messages_author_staff_id_staff_accounts_id_fk" FOREIGN KEY ("author_staff_id") REFERENCES "public"."staff_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_pdfs" ADD CONSTRAINT "invoice_pdfs_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_pdfs" ADD CONSTRAINT "invoice_pdfs_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_price_lists" ADD CONSTRAINT "billing_price_lists_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_details" ADD CONSTRAINT "billing_details_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_client_number_uq" ON "tickets" USING btree ("client_id","number");--> statement-breakpoint
CREATE INDEX "tickets_client_created_idx" ON "tickets" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "tickets_client_status_created_idx" ON "tickets" USING btree ("client_id","status","created_at" desc);--> statement-breakpoint
CREATE INDEX "tickets_created_idx" ON "tickets" USING btree ("created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "tickets_status_created_idx" ON "tickets" USING btree ("status","created_at" desc);--> statement-breakpoint
CREATE INDEX "tickets_assignee_created_idx" ON "tickets" USING btree ("assignee_staff_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "tickets_resolved_due_idx" ON "tickets" USING btree ("resolved_at") WHERE status = 'resolved';--> statement-breakpoint
CREATE INDEX "ticket_attachments_message_idx" ON "ticket_attachments" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "ticket_emails_due_idx" ON "ticket_emails" USING btree ("next_attempt_at") WHERE state = 'pending';--> statement-breakpoint
CREATE INDEX "ticket_emails_message_idx" ON "ticket_emails" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "ticket_messages_ticket_created_idx" ON "ticket_messages" USING btree ("ticket_id","created_at","id");--> statement-breakpoint
CREATE INDEX "invoice_lines_invoice_idx" ON "invoice_lines" USING btree ("invoice_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_uq" ON "invoices" USING btree ("number");--> statement-breakpoint
CREATE INDEX "invoices_client_created_idx" ON "invoices" USING btree ("client_id","created_at" desc,"id" desc) WHERE status <> 'draft';--> statement-breakpoint
CREATE INDEX "invoices_client_status_created_idx" ON "invoices" USING btree ("client_id","status","created_at" desc);--> statement-breakpoint
CREATE INDEX "invoices_created_idx" ON "invoices" USING btree ("created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "invoices_status_created_idx" ON "invoices" USING btree ("status","created_at" desc);--> statement-breakpoint
CREATE INDEX "invoices_open_due_idx" ON "invoices" USING btree ("due_date") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "invoices_email_due_idx" ON "invoices" USING btree ("email_next_at") WHERE email_state = 'pending';--> statement-breakpoint
CREATE INDEX "invoices_payment_link_due_idx" ON "invoices" USING btree ("payment_link_next_at") WHERE payment_link_state = 'pending';--> statement-breakpoint
CREATE INDEX "transactions_client_success_completed_idx" ON "transactions" USING btree ("client_id","completed_at") WHERE status = 'success';--> statement-breakpoint
CREATE INDEX "verification_records_client_kind_decision_idx" ON "verification_records" USING btree ("client_id","kind","decision_at") WHERE decision_at is not null;