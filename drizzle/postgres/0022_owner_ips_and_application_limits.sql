CREATE TABLE "owner_ips" (
	"owner_id" text NOT NULL,
	"ip" text NOT NULL,
	"first_seen" bigint NOT NULL,
	"last_seen" bigint NOT NULL,
	CONSTRAINT "owner_ips_owner_id_ip_pk" PRIMARY KEY("owner_id","ip")
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "ban_propagation_to_addresses" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "sign_ups_per_hour" integer;--> statement-breakpoint
ALTER TABLE "owner_ips" ADD CONSTRAINT "owner_ips_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;