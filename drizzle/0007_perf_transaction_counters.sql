CREATE TABLE "transaction_count_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"status" text NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "transaction_count_deltas_client_status_idx" ON "transaction_count_deltas" USING btree ("client_id","status");