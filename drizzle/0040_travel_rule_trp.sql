ALTER TABLE "travel_rule_transfers" ALTER COLUMN "fiat_amount" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "travel_rule_transfers" ALTER COLUMN "fiat_currency" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "travel_rule_transfers" ADD COLUMN "counterparty_callback" text;