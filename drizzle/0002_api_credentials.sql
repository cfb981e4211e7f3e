CREATE TABLE "api_credentials" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"label" text NOT NULL,
	"api_key" text NOT NULL,
	"secret_hash" text NOT NULL,
	"role" text NOT NULL,
	"permissions" jsonb,
	"created_by_account_id" uuid,
	"tokens_valid_from" timestamp with time zone DEFAULT now() NOT NULL,
	"secret_rotated_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_credentials_api_key_unique" UNIQUE("api_key")
);
--> statement-breakpoint
CREATE TABLE "api_key_lockouts" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_failure_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_credentials" ADD CONSTRAINT "api_credentials_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_credentials" ADD CONSTRAINT "api_credentials_created_by_account_id_accounts_id_fk" FOREIGN KEY ("created_by_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_credentials_client_idx" ON "api_credentials" USING btree ("client_id","created_at");--> statement-breakpoint
CREATE INDEX "api_key_lockouts_last_failure_idx" ON "api_key_lockouts" USING btree ("last_failure_at");