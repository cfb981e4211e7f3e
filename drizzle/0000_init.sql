CREATE TABLE "accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"email" text NOT NULL,
	"full_name" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"email_verified_at" timestamp with time zone,
	"mfa_use_client_default" boolean DEFAULT true NOT NULL,
	"mfa_enabled" boolean DEFAULT false NOT NULL,
	"mfa_email_enabled" boolean DEFAULT true NOT NULL,
	"mfa_totp_enabled" boolean DEFAULT false NOT NULL,
	"mfa_preferred_method" text DEFAULT 'email' NOT NULL,
	"totp_secret_enc" text,
	"totp_enrolled_at" timestamp with time zone,
	"totp_last_step" integer,
	"password_changed_at" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "revoked_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "staff_accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"full_name" text,
	"password_hash" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE "auth_throttles" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "clients" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_name" text NOT NULL,
	"email" text NOT NULL,
	"status" text DEFAULT 'pending_verification' NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"production_access_enabled" boolean DEFAULT false NOT NULL,
	"payment_links_enabled" boolean DEFAULT true NOT NULL,
	"kyc_links_enabled" boolean DEFAULT true NOT NULL,
	"callback_url" text,
	"webhook_url" text,
	"webhook_enabled" boolean DEFAULT false NOT NULL,
	"webhook_secret_enc" text,
	"webhook_event_types" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"mfa_enabled" boolean DEFAULT false NOT NULL,
	"mfa_email_enabled" boolean DEFAULT true NOT NULL,
	"mfa_totp_enabled" boolean DEFAULT false NOT NULL,
	"mfa_preferred_method" text DEFAULT 'email' NOT NULL,
	"visibility_groups" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"verified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "business_customers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"company_name" text NOT NULL,
	"registration_number" text,
	"country" text NOT NULL,
	"email" text NOT NULL,
	"kyb_status" text DEFAULT 'none' NOT NULL,
	"verification_mode" text DEFAULT 'service_kyb' NOT NULL,
	"external_status" text,
	"verification_source" text DEFAULT 'none' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kyc_users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"email" text NOT NULL,
	"first_name" text,
	"last_name" text,
	"external_ref" text,
	"kyc_status" text DEFAULT 'none' NOT NULL,
	"verification_mode" text DEFAULT 'service_kyc' NOT NULL,
	"external_status" text,
	"verification_source" text DEFAULT 'none' NOT NULL,
	"external_reference" text,
	"external_note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_verifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_verifications_account_id_unique" UNIQUE("account_id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"type" text NOT NULL,
	"version" text DEFAULT 'v1' NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"data" jsonb NOT NULL,
	"dedup_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "login_challenges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"allowed_methods" jsonb NOT NULL,
	"preferred_method" text NOT NULL,
	"email_code_hash" text,
	"email_sent_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"invalidated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "login_challenges_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "opcos" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"status_reason" text,
	"opco_type" text NOT NULL,
	"name" text NOT NULL,
	"domain" text NOT NULL,
	"country_code" text NOT NULL,
	"legal_entity_name" text,
	"registration_number" text NOT NULL,
	"primary_use_case" text NOT NULL,
	"settlement_iban" text NOT NULL,
	"settlement_bic" text,
	"mcc" text NOT NULL,
	"mcc_subtype" text,
	"logo" text,
	"parent_sub_tpp_id" text,
	"sole_trader" jsonb,
	"ubos" jsonb,
	"directors" jsonb,
	"signatories" jsonb,
	"sub_tpp_id" text,
	"submitted_at" timestamp with time zone,
	"activation_due_at" timestamp with time zone,
	"activated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform_settings" (
	"id" text PRIMARY KEY DEFAULT 'global' NOT NULL,
	"registration_enabled" boolean,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"project_name" text NOT NULL,
	"opco_id" uuid,
	"is_frozen" boolean DEFAULT false NOT NULL,
	"frozen_reason" text,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refresh_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"last_refreshed_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoke_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_bank_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"ref_id" text NOT NULL,
	"transaction_id" uuid NOT NULL,
	"amount" text NOT NULL,
	"currency" text NOT NULL,
	"merchant_name" text NOT NULL,
	"bank_id" text,
	"transfer_id" text,
	"provider_status" text DEFAULT 'initiated' NOT NULL,
	"return_url" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_verification_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"provider_ref" text NOT NULL,
	"kind" text NOT NULL,
	"level" text NOT NULL,
	"checks" jsonb NOT NULL,
	"subject" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"result_enc" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "security_challenges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"action" text NOT NULL,
	"method" text NOT NULL,
	"token_hash" text NOT NULL,
	"code_hash" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"invalidated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "security_challenges_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "staff_login_attempts" (
	"email_key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "totp_enrollments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"secret_enc" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "totp_enrollments_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "payment_idempotency_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text DEFAULT 'processing' NOT NULL,
	"transaction_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "transaction_status_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"provider_status" text,
	"reconciliation_state" text NOT NULL,
	"kind" text NOT NULL,
	"reason" text,
	"ref_id" text,
	"actor_type" text,
	"actor_account_id" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"user_id" uuid,
	"business_customer_id" uuid,
	"contract_request_id" uuid,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"description" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"provider_status" text,
	"reconciliation_state" text DEFAULT 'none' NOT NULL,
	"status_reason" text,
	"ref_id" text NOT NULL,
	"transfer_id" text,
	"bank_id" text,
	"checkout_token" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_refresh_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_levels" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"checks" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_records" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"user_id" uuid,
	"business_customer_id" uuid,
	"status" text NOT NULL,
	"data_trusted" boolean DEFAULT false NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	"decision_at" timestamp with time zone,
	"provider_updated_at" timestamp with time zone NOT NULL,
	"provider_revision" integer NOT NULL,
	"first_name" text,
	"last_name" text,
	"full_name" text,
	"date_of_birth_enc" text,
	"nationality" text,
	"document_type" text,
	"document_issuing_country" text,
	"document_expiry" text,
	"gender" text,
	"liveness_status" text,
	"liveness_score" double precision,
	"face_match_status" text,
	"face_match_score" double precision,
	"nfc_status" text,
	"poa_status" text,
	"aml_status" text,
	"aml_total_hits" integer,
	"document_number_enc" text,
	"sof_questionnaire_enc" text,
	"poa_enc" text,
	"aml_hits_enc" text,
	"documents" jsonb,
	"company_name" text,
	"registration_number" text,
	"registration_country" text,
	"company_type" text,
	"incorporation_date" text,
	"registry_status" text,
	"business_registry_details" jsonb,
	"business_key_people" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"user_id" uuid,
	"business_customer_id" uuid,
	"level" text NOT NULL,
	"checks" jsonb NOT NULL,
	"token" text NOT NULL,
	"redirect_url" text,
	"provider_ref" text,
	"status" text DEFAULT 'creating' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"submitted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"event_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"destination_id" uuid,
	"event_type" text NOT NULL,
	"url" text NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"cycle_attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"lease_token" uuid,
	"last_attempt_at" timestamp with time zone,
	"last_response_status" integer,
	"last_error" text,
	"succeeded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_delivery_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"delivery_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"url" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"response_status" integer,
	"response_body" text,
	"error" text,
	"outcome" text NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_destinations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text,
	"event_types" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"secret_enc" text NOT NULL,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_definitions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"graph" jsonb NOT NULL,
	"status" text DEFAULT 'DRAFT' NOT NULL,
	"trigger_type" text DEFAULT 'manual' NOT NULL,
	"trigger_token" text,
	"trigger_secret_enc" text,
	"forked_from_id" uuid,
	"published_at" timestamp with time zone,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_run_steps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"step_id" text NOT NULL,
	"node_type" text NOT NULL,
	"status" text NOT NULL,
	"output" jsonb,
	"error" text,
	"resume_at" timestamp with time zone,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workflow_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"definition_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"source" text DEFAULT 'api' NOT NULL,
	"input" jsonb NOT NULL,
	"step_outputs" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"current_step_id" text,
	"error_message" text,
	"idempotency_key" text,
	"input_fingerprint" text,
	"due_at" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"lease_token" uuid,
	"claims" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_credentials" ADD CONSTRAINT "api_credentials_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_credentials" ADD CONSTRAINT "api_credentials_created_by_account_id_accounts_id_fk" FOREIGN KEY ("created_by_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_customers" ADD CONSTRAINT "business_customers_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kyc_users" ADD CONSTRAINT "kyc_users_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_verifications" ADD CONSTRAINT "email_verifications_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_verifications" ADD CONSTRAINT "email_verifications_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_challenges" ADD CONSTRAINT "login_challenges_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_challenges" ADD CONSTRAINT "login_challenges_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opcos" ADD CONSTRAINT "opcos_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_opco_id_opcos_id_fk" FOREIGN KEY ("opco_id") REFERENCES "public"."opcos"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_sessions" ADD CONSTRAINT "refresh_sessions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_sessions" ADD CONSTRAINT "refresh_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_session_id_refresh_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."refresh_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_challenges" ADD CONSTRAINT "security_challenges_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_challenges" ADD CONSTRAINT "security_challenges_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "totp_enrollments" ADD CONSTRAINT "totp_enrollments_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "totp_enrollments" ADD CONSTRAINT "totp_enrollments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_idempotency_keys" ADD CONSTRAINT "payment_idempotency_keys_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_idempotency_keys" ADD CONSTRAINT "payment_idempotency_keys_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_status_events" ADD CONSTRAINT "transaction_status_events_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_status_events" ADD CONSTRAINT "transaction_status_events_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_user_id_kyc_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."kyc_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_business_customer_id_business_customers_id_fk" FOREIGN KEY ("business_customer_id") REFERENCES "public"."business_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_levels" ADD CONSTRAINT "verification_levels_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_records" ADD CONSTRAINT "verification_records_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_records" ADD CONSTRAINT "verification_records_session_id_verification_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."verification_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_records" ADD CONSTRAINT "verification_records_user_id_kyc_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."kyc_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_records" ADD CONSTRAINT "verification_records_business_customer_id_business_customers_id_fk" FOREIGN KEY ("business_customer_id") REFERENCES "public"."business_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_sessions" ADD CONSTRAINT "verification_sessions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_sessions" ADD CONSTRAINT "verification_sessions_user_id_kyc_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."kyc_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_sessions" ADD CONSTRAINT "verification_sessions_business_customer_id_business_customers_id_fk" FOREIGN KEY ("business_customer_id") REFERENCES "public"."business_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_destination_id_webhook_destinations_id_fk" FOREIGN KEY ("destination_id") REFERENCES "public"."webhook_destinations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_destinations" ADD CONSTRAINT "webhook_destinations_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_definitions" ADD CONSTRAINT "workflow_definitions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_run_steps" ADD CONSTRAINT "workflow_run_steps_run_id_workflow_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."workflow_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_run_steps" ADD CONSTRAINT "workflow_run_steps_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD CONSTRAINT "workflow_runs_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD CONSTRAINT "workflow_runs_definition_id_workflow_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."workflow_definitions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_email_uq" ON "accounts" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "accounts_client_idx" ON "accounts" USING btree ("client_id","created_at");--> statement-breakpoint
CREATE INDEX "revoked_tokens_expires_idx" ON "revoked_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_accounts_email_uq" ON "staff_accounts" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "api_credentials_client_idx" ON "api_credentials" USING btree ("client_id","created_at");--> statement-breakpoint
CREATE INDEX "api_key_lockouts_last_failure_idx" ON "api_key_lockouts" USING btree ("last_failure_at");--> statement-breakpoint
CREATE UNIQUE INDEX "clients_email_uq" ON "clients" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "business_customers_client_email_uq" ON "business_customers" USING btree ("client_id",lower("email"));--> statement-breakpoint
CREATE INDEX "business_customers_client_created_idx" ON "business_customers" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "business_customers_client_status_idx" ON "business_customers" USING btree ("client_id","kyb_status","created_at" desc);--> statement-breakpoint
CREATE UNIQUE INDEX "kyc_users_client_email_uq" ON "kyc_users" USING btree ("client_id",lower("email"));--> statement-breakpoint
CREATE INDEX "kyc_users_client_created_idx" ON "kyc_users" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "kyc_users_client_status_idx" ON "kyc_users" USING btree ("client_id","kyc_status","created_at" desc);--> statement-breakpoint
CREATE INDEX "email_verifications_client_idx" ON "email_verifications" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "events_dedup_key_uq" ON "events" USING btree ("dedup_key");--> statement-breakpoint
CREATE INDEX "events_client_created_idx" ON "events" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "login_challenges_account_idx" ON "login_challenges" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "opcos_client_created_idx" ON "opcos" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "opcos_status_created_idx" ON "opcos" USING btree ("status","created_at" desc);--> statement-breakpoint
CREATE INDEX "opcos_activation_due_idx" ON "opcos" USING btree ("activation_due_at") WHERE status = 'awaiting_approval';--> statement-breakpoint
CREATE INDEX "projects_client_created_idx" ON "projects" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "projects_opco_idx" ON "projects" USING btree ("opco_id");--> statement-breakpoint
CREATE INDEX "refresh_sessions_account_idx" ON "refresh_sessions" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_idx" ON "refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_bank_sessions_ref_uq" ON "sandbox_bank_sessions" USING btree ("ref_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_bank_sessions_transfer_uq" ON "sandbox_bank_sessions" USING btree ("transfer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_verification_sessions_ref_uq" ON "sandbox_verification_sessions" USING btree ("provider_ref");--> statement-breakpoint
CREATE INDEX "security_challenges_account_idx" ON "security_challenges" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "totp_enrollments_account_idx" ON "totp_enrollments" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_idempotency_keys_client_key_uq" ON "payment_idempotency_keys" USING btree ("client_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "transaction_status_events_tx_idx" ON "transaction_status_events" USING btree ("transaction_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_checkout_token_uq" ON "transactions" USING btree ("checkout_token");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_ref_id_uq" ON "transactions" USING btree ("ref_id");--> statement-breakpoint
CREATE INDEX "transactions_client_created_idx" ON "transactions" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "transactions_client_status_created_idx" ON "transactions" USING btree ("client_id","status","created_at" desc);--> statement-breakpoint
CREATE INDEX "transactions_client_project_created_idx" ON "transactions" USING btree ("client_id","project_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "transactions_client_user_created_idx" ON "transactions" USING btree ("client_id","user_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "transactions_pending_expiry_idx" ON "transactions" USING btree ("expires_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "transactions_processing_expiry_idx" ON "transactions" USING btree ("expires_at") WHERE status = 'processing';--> statement-breakpoint
CREATE UNIQUE INDEX "verification_levels_client_kind_name_uq" ON "verification_levels" USING btree ("client_id","kind",lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "verification_records_session_uq" ON "verification_records" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "verification_records_user_order_idx" ON "verification_records" USING btree ("client_id","user_id","decision_at" desc nulls last,"fetched_at" desc);--> statement-breakpoint
CREATE INDEX "verification_records_business_order_idx" ON "verification_records" USING btree ("client_id","business_customer_id","decision_at" desc nulls last,"fetched_at" desc);--> statement-breakpoint
CREATE UNIQUE INDEX "verification_sessions_token_uq" ON "verification_sessions" USING btree ("token");--> statement-breakpoint
CREATE UNIQUE INDEX "verification_sessions_provider_ref_uq" ON "verification_sessions" USING btree ("provider_ref");--> statement-breakpoint
CREATE INDEX "verification_sessions_pending_expiry_idx" ON "verification_sessions" USING btree ("expires_at") WHERE "verification_sessions"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "verification_sessions_client_user_idx" ON "verification_sessions" USING btree ("client_id","user_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "verification_sessions_client_business_idx" ON "verification_sessions" USING btree ("client_id","business_customer_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" in ('pending', 'retrying');--> statement-breakpoint
CREATE INDEX "webhook_deliveries_client_created_idx" ON "webhook_deliveries" USING btree ("client_id","created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "webhook_delivery_attempts_delivery_idx" ON "webhook_delivery_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_destinations_client_created_idx" ON "webhook_destinations" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "workflow_definitions_client_created_idx" ON "workflow_definitions" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_definitions_trigger_token_uq" ON "workflow_definitions" USING btree ("trigger_token") WHERE "workflow_definitions"."trigger_token" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_run_steps_run_step_uq" ON "workflow_run_steps" USING btree ("run_id","step_id");--> statement-breakpoint
CREATE INDEX "workflow_runs_client_created_idx" ON "workflow_runs" USING btree ("client_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "workflow_runs_definition_created_idx" ON "workflow_runs" USING btree ("definition_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "workflow_runs_due_idx" ON "workflow_runs" USING btree ("due_at") WHERE "workflow_runs"."status" in ('pending', 'running', 'waiting');--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_runs_idempotency_uq" ON "workflow_runs" USING btree ("client_id","definition_id","idempotency_key") WHERE "workflow_runs"."idempotency_key" is not null;