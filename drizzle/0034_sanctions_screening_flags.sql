ALTER TABLE "travel_rule_transfers" ADD COLUMN "sanctions_screening" text;--> statement-breakpoint
ALTER TABLE "wallet_ownership_requests" ADD COLUMN "declarant_sanctions_screening" text;--> statement-breakpoint
-- Records screened before the field existed say so; the others stay null (not known).
UPDATE "travel_rule_transfers" SET "sanctions_screening" = 'screened' WHERE "sanctions_matches" IS NOT NULL AND "sanctions_screening" IS NULL;--> statement-breakpoint
UPDATE "wallet_ownership_requests" SET "declarant_sanctions_screening" = 'screened' WHERE "declarant_sanctions_matches" IS NOT NULL AND "declarant_sanctions_screening" IS NULL;
