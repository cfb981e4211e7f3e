CREATE INDEX "business_customers_client_email_search_idx" ON "business_customers" USING btree ("client_id",lower("email") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "business_customers_client_name_search_idx" ON "business_customers" USING btree ("client_id",lower("company_name") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "kyc_users_client_email_search_idx" ON "kyc_users" USING btree ("client_id",lower("email") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "opcos_client_name_search_idx" ON "opcos" USING btree ("client_id",lower("name") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "projects_client_name_search_idx" ON "projects" USING btree ("client_id",lower("project_name") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "transactions_client_ref_search_idx" ON "transactions" USING btree ("client_id",lower("ref_id") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "transactions_client_description_search_idx" ON "transactions" USING btree ("client_id",lower("description") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "transactions_client_business_created_idx" ON "transactions" USING btree ("client_id","business_customer_id","created_at" desc);