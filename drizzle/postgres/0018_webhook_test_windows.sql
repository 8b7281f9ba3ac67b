CREATE TABLE "webhook_test_windows" (
	"application_id" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"sends" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_test_windows" ADD CONSTRAINT "webhook_test_windows_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;