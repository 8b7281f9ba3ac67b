ALTER TABLE "applications" ADD COLUMN "propagated_ip_ban_hours" integer DEFAULT 24;--> statement-breakpoint
ALTER TABLE "bans" ADD COLUMN "propagated_from" text;--> statement-breakpoint
ALTER TABLE "bans" ADD COLUMN "expires_at" bigint;--> statement-breakpoint
CREATE INDEX "bans_app_propagated_from_idx" ON "bans" USING btree ("application_id","propagated_from");