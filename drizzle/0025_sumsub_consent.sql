ALTER TABLE "verification_sessions" ADD COLUMN "consent_accepted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "verification_sessions" ADD COLUMN "consent_version" text;