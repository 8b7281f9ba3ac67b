CREATE TABLE "login_days" (
	"application_id" text NOT NULL,
	"day" bigint NOT NULL,
	"logins" integer NOT NULL,
	CONSTRAINT "login_days_application_id_day_pk" PRIMARY KEY("application_id","day")
);
--> statement-breakpoint
-- Logins counted before this table existed: one a session opened, by UTC day (the overview's rule).
INSERT INTO "login_days" ("application_id", "day", "logins") SELECT "application_id", ("created_at" / 86400000) * 86400000, count(*) FROM "sessions" GROUP BY 1, 2;--> statement-breakpoint
DROP INDEX "sessions_user_idx";--> statement-breakpoint
DROP INDEX "sessions_app_created_idx";--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "propagated_ip_ban_hours" integer DEFAULT 24;--> statement-breakpoint
ALTER TABLE "bans" ADD COLUMN "propagated_from" text;--> statement-breakpoint
ALTER TABLE "bans" ADD COLUMN "expires_at" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "legacy" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "login_days" ADD CONSTRAINT "login_days_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bans_app_propagated_from_idx" ON "bans" USING btree ("application_id","propagated_from");--> statement-breakpoint
CREATE INDEX "sessions_user_expires_idx" ON "sessions" USING btree ("user_id","expires_at");--> statement-breakpoint
CREATE INDEX "sessions_expires_idx" ON "sessions" USING btree ("expires_at");