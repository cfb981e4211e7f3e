ALTER TABLE "sanctions_list_state" ADD COLUMN "etag" text;--> statement-breakpoint
ALTER TABLE "sanctions_list_state" ADD COLUMN "last_modified" text;