CREATE TABLE "sanctions_list_entries" (
	"snapshot_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"entry_id" text NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "sanctions_list_entries_snapshot_id_position_pk" PRIMARY KEY("snapshot_id","position")
);
--> statement-breakpoint
CREATE TABLE "sanctions_list_snapshots" (
	"id" uuid PRIMARY KEY NOT NULL,
	"list" text NOT NULL,
	"version" text NOT NULL,
	"published_at" text,
	"content_sha256" text NOT NULL,
	"entry_count" integer NOT NULL,
	"added_count" integer DEFAULT 0 NOT NULL,
	"removed_count" integer DEFAULT 0 NOT NULL,
	"status" text NOT NULL,
	"loaded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sanctions_list_state" (
	"list" text PRIMARY KEY NOT NULL,
	"current_snapshot_id" uuid,
	"last_attempt_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "travel_rule_transfers" ADD COLUMN "sanctions_matches" jsonb;--> statement-breakpoint
ALTER TABLE "wallet_ownership_requests" ADD COLUMN "declarant_sanctions_matches" jsonb;--> statement-breakpoint
CREATE INDEX "sanctions_list_snapshots_list_idx" ON "sanctions_list_snapshots" USING btree ("list","created_at");