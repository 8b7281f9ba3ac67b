CREATE TABLE "refresh_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"family_id" text NOT NULL,
	"hardware_id" text NOT NULL,
	"token_digest" text NOT NULL,
	"session_id" text,
	"issued_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"spent_at" bigint,
	"revoked_at" bigint,
	CONSTRAINT "refresh_tokens_token_digest_unique" UNIQUE("token_digest")
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "heartbeat_seconds" integer;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "refresh_ttl_days" integer DEFAULT 30;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "platform" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "app_version" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "last_seen_at" bigint;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "last_ip" text;--> statement-breakpoint
ALTER TABLE "licenses" ADD COLUMN "seat_exhausted_at" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "lease_expires_at" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "refresh_family_id" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "floating_license_id" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "borrowed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refresh_tokens_family_idx" ON "refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_user_idx" ON "refresh_tokens" USING btree ("user_id","hardware_id");--> statement-breakpoint
CREATE INDEX "sessions_floating_live_idx" ON "sessions" USING btree ("floating_license_id","expires_at") WHERE "sessions"."revoked_at" is null and "sessions"."floating_license_id" is not null;--> statement-breakpoint
CREATE INDEX "sessions_refresh_family_idx" ON "sessions" USING btree ("refresh_family_id");--> statement-breakpoint
UPDATE "devices" SET "last_seen_at" = "registered_at";
