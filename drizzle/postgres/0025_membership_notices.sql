CREATE TABLE "membership_notices" (
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"period_end" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "membership_notices_user_id_kind_period_end_pk" PRIMARY KEY("user_id","kind","period_end")
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "expiry_notice_days" integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE "membership_notices" ADD CONSTRAINT "membership_notices_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_notices" ADD CONSTRAINT "membership_notices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "users_active_until_idx" ON "users" USING btree ("active_until");