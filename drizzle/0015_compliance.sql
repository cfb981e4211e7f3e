CREATE TABLE "monitoring_remediation_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"monitored_transaction_id" uuid NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "monitored_transactions" ADD COLUMN "remediation_verification_id" uuid;--> statement-breakpoint
ALTER TABLE "monitored_transactions" ADD COLUMN "remediation_ownership_request_id" uuid;--> statement-breakpoint
ALTER TABLE "monitoring_remediation_documents" ADD CONSTRAINT "monitoring_remediation_documents_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitoring_remediation_documents" ADD CONSTRAINT "monitoring_remediation_documents_monitored_transaction_id_monitored_transactions_id_fk" FOREIGN KEY ("monitored_transaction_id") REFERENCES "public"."monitored_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "monitoring_remediation_documents_tx_idx" ON "monitoring_remediation_documents" USING btree ("monitored_transaction_id");--> statement-breakpoint
CREATE INDEX "monitored_tx_remediation_verification_idx" ON "monitored_transactions" USING btree ("remediation_verification_id") WHERE remediation_verification_id is not null;--> statement-breakpoint
CREATE INDEX "monitored_tx_remediation_ownership_idx" ON "monitored_transactions" USING btree ("remediation_ownership_request_id") WHERE remediation_ownership_request_id is not null;