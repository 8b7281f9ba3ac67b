CREATE TABLE "add_on_grants" (
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"plan_id" text NOT NULL,
	"ends_at" bigint,
	"granted_at" bigint NOT NULL,
	CONSTRAINT "add_on_grants_user_id_plan_id_pk" PRIMARY KEY("user_id","plan_id")
);
--> statement-breakpoint
CREATE TABLE "license_redemptions" (
	"license_id" text NOT NULL,
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"redeemed_at" bigint NOT NULL,
	"plan_from" text,
	"minutes" integer,
	CONSTRAINT "license_redemptions_license_id_user_id_pk" PRIMARY KEY("license_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "trial_ledger" (
	"application_id" text NOT NULL,
	"hardware_digest" text NOT NULL,
	"started_at" bigint NOT NULL,
	CONSTRAINT "trial_ledger_application_id_hardware_digest_pk" PRIMARY KEY("application_id","hardware_digest")
);
--> statement-breakpoint
ALTER TABLE "adjustments" ADD COLUMN "plan_from" text;--> statement-breakpoint
ALTER TABLE "adjustments" ADD COLUMN "plan_to" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "trial_plan_id" text;--> statement-breakpoint
ALTER TABLE "licenses" ADD COLUMN "plan_id" text;--> statement-breakpoint
ALTER TABLE "licenses" ADD COLUMN "seats" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "licenses" ADD COLUMN "redemptions" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "plan_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "entitlements" text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "trial_started_at" bigint;--> statement-breakpoint
ALTER TABLE "add_on_grants" ADD CONSTRAINT "add_on_grants_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "add_on_grants" ADD CONSTRAINT "add_on_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_redemptions" ADD CONSTRAINT "license_redemptions_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_redemptions" ADD CONSTRAINT "license_redemptions_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_ledger" ADD CONSTRAINT "trial_ledger_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "license_redemptions_user_idx" ON "license_redemptions" USING btree ("user_id");--> statement-breakpoint
-- Licenses redeemed before seats count one redemption (docs/plans.md, "Seats").
UPDATE "licenses" SET "redemptions" = 1 WHERE "used_at" IS NOT NULL;
