CREATE TABLE "adjustments" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"type" text NOT NULL,
	"occurred_at" bigint NOT NULL,
	"minutes" integer,
	"grants_lifetime" boolean NOT NULL,
	"revokes_lifetime" boolean NOT NULL,
	"license_id" text,
	"reason" text
);
--> statement-breakpoint
CREATE TABLE "announcements" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"title" text NOT NULL,
	"content_html" text NOT NULL,
	"status" text NOT NULL,
	"publish_from" bigint NOT NULL,
	"publish_until" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "applications" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"name" text NOT NULL,
	"anonymous_access" boolean NOT NULL,
	"device_auth" boolean NOT NULL,
	"legacy_auth" boolean NOT NULL,
	"token_auth" boolean NOT NULL,
	"session_ttl_seconds" integer NOT NULL,
	"default_allowed_devices" integer NOT NULL,
	"default_allowed_sessions" integer NOT NULL,
	"ban_propagation" boolean NOT NULL,
	"password_min_length" integer NOT NULL,
	"api_key" text NOT NULL,
	"api_secret_digest" text NOT NULL,
	"admin_api_key_digest" text NOT NULL,
	"files_key_sealed" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "applications_api_key_unique" UNIQUE("api_key"),
	CONSTRAINT "applications_admin_api_key_digest_unique" UNIQUE("admin_api_key_digest")
);
--> statement-breakpoint
CREATE TABLE "auth_account_counters" (
	"application_id" text NOT NULL,
	"account_key" text NOT NULL,
	"failures" integer NOT NULL,
	"locked_until" bigint,
	"lockouts" integer NOT NULL,
	"in_flight" integer DEFAULT 0 NOT NULL,
	"in_flight_until" bigint,
	CONSTRAINT "auth_account_counters_application_id_account_key_pk" PRIMARY KEY("application_id","account_key")
);
--> statement-breakpoint
CREATE TABLE "auth_ip_counters" (
	"application_id" text NOT NULL,
	"ip" text NOT NULL,
	"window_start" bigint NOT NULL,
	"failures" integer NOT NULL,
	CONSTRAINT "auth_ip_counters_application_id_ip_pk" PRIMARY KEY("application_id","ip")
);
--> statement-breakpoint
CREATE TABLE "bans" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"type" text NOT NULL,
	"value" text NOT NULL,
	"reason" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "bans_app_type_value_uq" UNIQUE("application_id","type","value")
);
--> statement-breakpoint
CREATE TABLE "console_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"digest" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "console_tokens_digest_unique" UNIQUE("digest")
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"hardware_id" text NOT NULL,
	"registered_at" bigint NOT NULL,
	CONSTRAINT "devices_user_hardware_uq" UNIQUE("user_id","hardware_id")
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"name" text NOT NULL,
	"is_public" boolean NOT NULL,
	"mime_type" text NOT NULL,
	"original_filename" text NOT NULL,
	"store_encrypted" boolean NOT NULL,
	"source" text NOT NULL,
	"processing_status" text NOT NULL,
	"processing_error" text,
	"pending_job_id" text,
	"stored_blob_key" text,
	"size_bytes" bigint,
	"sha256" text,
	"stored_size_bytes" bigint,
	"stored_sha256" text,
	"stored_encrypted" boolean,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "files_app_name_uq" UNIQUE("application_id","name"),
	CONSTRAINT "files_stored_together" CHECK (("files"."stored_blob_key" is null) = ("files"."size_bytes" is null) and ("files"."stored_blob_key" is null) = ("files"."sha256" is null) and ("files"."stored_blob_key" is null) = ("files"."stored_size_bytes" is null) and ("files"."stored_blob_key" is null) = ("files"."stored_sha256" is null) and ("files"."stored_blob_key" is null) = ("files"."stored_encrypted" is null))
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"file_id" text NOT NULL,
	"staging_key" text NOT NULL,
	"output_key" text NOT NULL,
	"encrypt" boolean NOT NULL,
	"attempts" integer NOT NULL,
	"run_after" bigint NOT NULL,
	"lease_until" bigint,
	"lease_owner" text,
	"created_at" bigint NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "jobs_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1)
);
--> statement-breakpoint
CREATE TABLE "licenses" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"code_digest" text NOT NULL,
	"code_sealed" text NOT NULL,
	"minutes" integer,
	"note" text,
	"created_at" bigint NOT NULL,
	"used_at" bigint,
	"used_by_user_id" text,
	"banned" boolean NOT NULL,
	CONSTRAINT "licenses_code_digest_unique" UNIQUE("code_digest")
);
--> statement-breakpoint
CREATE TABLE "owners" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "owners_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"hardware_id" text,
	"token_digest" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "user_ips" (
	"user_id" text NOT NULL,
	"ip" text NOT NULL,
	"first_seen" bigint NOT NULL,
	"last_seen" bigint NOT NULL,
	CONSTRAINT "user_ips_user_id_ip_pk" PRIMARY KEY("user_id","ip")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"username" text NOT NULL,
	"username_key" text NOT NULL,
	"credential_type" text NOT NULL,
	"password_hash" text,
	"license_id" text,
	"allowed_devices" integer NOT NULL,
	"allowed_sessions" integer NOT NULL,
	"active_until" bigint,
	"is_lifetime" boolean NOT NULL,
	"timed_out_until" bigint,
	"timeout_reason" text,
	"last_ip" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "users_app_username_key_uq" UNIQUE("application_id","username_key")
);
--> statement-breakpoint
CREATE TABLE "variables" (
	"application_id" text NOT NULL,
	"name" text NOT NULL,
	"value" text NOT NULL,
	"is_public" boolean NOT NULL,
	CONSTRAINT "variables_application_id_name_pk" PRIMARY KEY("application_id","name")
);
--> statement-breakpoint
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcements" ADD CONSTRAINT "announcements_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bans" ADD CONSTRAINT "bans_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_tokens" ADD CONSTRAINT "console_tokens_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_ips" ADD CONSTRAINT "user_ips_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "variables" ADD CONSTRAINT "variables_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "adjustments_user_idx" ON "adjustments" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "announcements_app_idx" ON "announcements" USING btree ("application_id");--> statement-breakpoint
CREATE INDEX "applications_owner_idx" ON "applications" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "console_tokens_owner_idx" ON "console_tokens" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "jobs_run_after_idx" ON "jobs" USING btree ("run_after");--> statement-breakpoint
CREATE INDEX "jobs_file_idx" ON "jobs" USING btree ("file_id");--> statement-breakpoint
CREATE INDEX "licenses_app_idx" ON "licenses" USING btree ("application_id");--> statement-breakpoint
CREATE INDEX "licenses_used_by_idx" ON "licenses" USING btree ("used_by_user_id");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "users_app_license_idx" ON "users" USING btree ("application_id","license_id");