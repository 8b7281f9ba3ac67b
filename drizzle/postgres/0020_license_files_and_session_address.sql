CREATE TABLE "license_files" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"hardware_id" text,
	"issued_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"issued_by_type" text NOT NULL,
	"issued_by_id" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "address" text;--> statement-breakpoint
ALTER TABLE "license_files" ADD CONSTRAINT "license_files_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_files" ADD CONSTRAINT "license_files_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "license_files_user_expires_idx" ON "license_files" USING btree ("user_id","expires_at");