CREATE TABLE "plans" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"duration_minutes" integer,
	"entitlements" text NOT NULL,
	"max_devices" integer,
	"max_sessions" integer,
	"seats" integer NOT NULL,
	"grace_minutes" integer NOT NULL,
	"trial" boolean NOT NULL,
	"floating" boolean NOT NULL,
	"max_borrow_minutes" integer NOT NULL,
	"archived" boolean NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "plans_app_name_uq" UNIQUE("application_id","name")
);
--> statement-breakpoint
ALTER TABLE "plans" ADD CONSTRAINT "plans_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;