DROP INDEX "invoices_email_due_idx";--> statement-breakpoint
DROP INDEX "contract_requests_pending_idx";--> statement-breakpoint
DROP INDEX "notifications_email_due_idx";