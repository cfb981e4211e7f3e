CREATE TABLE "refunds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"transaction_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"failure_reason" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"network_refund_id" text,
	"provider_status" text,
	"submitted_at" timestamp with time zone,
	"network_check_at" timestamp with time zone,
	"network_checks" integer DEFAULT 0 NOT NULL,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_bank_refunds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"refund_id" text NOT NULL,
	"network_refund_id" text NOT NULL,
	"original_transfer_id" text NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"outcome" text,
	"reason" text,
	"settle_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "refunded_amount" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "refund_held_amount" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refunds_client_created_idx" ON "refunds" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "refunds_client_status_created_idx" ON "refunds" USING btree ("client_id","status","created_at" desc);--> statement-breakpoint
CREATE INDEX "refunds_client_project_created_idx" ON "refunds" USING btree ("client_id","project_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "refunds_transaction_created_idx" ON "refunds" USING btree ("transaction_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_network_refund_id_uq" ON "refunds" USING btree ("network_refund_id") WHERE network_refund_id is not null;--> statement-breakpoint
CREATE INDEX "refunds_network_check_idx" ON "refunds" USING btree ("network_check_at") WHERE status = 'processing' and network_check_at is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_bank_refunds_refund_uq" ON "sandbox_bank_refunds" USING btree ("refund_id");--> statement-breakpoint
CREATE INDEX "sandbox_bank_refunds_settle_idx" ON "sandbox_bank_refunds" USING btree ("settle_at") WHERE "sandbox_bank_refunds"."settle_at" is not null;