CREATE TABLE "login_days" (
	"application_id" text NOT NULL,
	"day" bigint NOT NULL,
	"logins" integer NOT NULL,
	CONSTRAINT "login_days_application_id_day_pk" PRIMARY KEY("application_id","day")
);
--> statement-breakpoint
DROP INDEX "sessions_user_idx";--> statement-breakpoint
DROP INDEX "sessions_app_created_idx";--> statement-breakpoint
ALTER TABLE "login_days" ADD CONSTRAINT "login_days_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_user_expires_idx" ON "sessions" USING btree ("user_id","expires_at");--> statement-breakpoint
CREATE INDEX "sessions_expires_idx" ON "sessions" USING btree ("expires_at");