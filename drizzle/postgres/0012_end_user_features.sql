CREATE TABLE "user_variables" (
	"application_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "user_variables_user_id_name_pk" PRIMARY KEY("user_id","name")
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "max_user_variables" integer DEFAULT 100 NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "device_reset_cooldown_hours" integer;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "last_device_reset_at" bigint;--> statement-breakpoint
ALTER TABLE "user_variables" ADD CONSTRAINT "user_variables_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_variables" ADD CONSTRAINT "user_variables_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;