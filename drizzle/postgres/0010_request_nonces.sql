CREATE TABLE "request_nonces" (
	"application_id" text NOT NULL,
	"nonce" text NOT NULL,
	"held_until" bigint NOT NULL,
	CONSTRAINT "request_nonces_application_id_nonce_pk" PRIMARY KEY("application_id","nonce")
);
--> statement-breakpoint
ALTER TABLE "request_nonces" ADD CONSTRAINT "request_nonces_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_nonces_held_until_idx" ON "request_nonces" USING btree ("held_until");