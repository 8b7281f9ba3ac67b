CREATE TABLE "sign_up_counters" (
	"application_id" text NOT NULL,
	"scope" text NOT NULL,
	"window_start" bigint NOT NULL,
	"sign_ups" integer NOT NULL,
	CONSTRAINT "sign_up_counters_application_id_scope_pk" PRIMARY KEY("application_id","scope")
);
