CREATE TABLE "auth_account_address_counters" (
	"application_id" text NOT NULL,
	"account_key" text NOT NULL,
	"ip" text NOT NULL,
	"failures" integer NOT NULL,
	"locked_until" bigint,
	"lockouts" integer NOT NULL,
	"in_flight" integer DEFAULT 0 NOT NULL,
	"in_flight_until" bigint,
	CONSTRAINT "auth_account_address_counters_application_id_account_key_ip_pk" PRIMARY KEY("application_id","account_key","ip")
);
--> statement-breakpoint
CREATE TABLE "auth_account_windows" (
	"application_id" text NOT NULL,
	"account_key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"failures" integer NOT NULL,
	CONSTRAINT "auth_account_windows_application_id_account_key_pk" PRIMARY KEY("application_id","account_key")
);
