ALTER TABLE "applications" ADD COLUMN "response_signing" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "request_signing" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "signature_window_seconds" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "response_signing_public_key" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "response_signing_private_key_sealed" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "previous_response_signing_public_key" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "previous_response_signing_private_key_sealed" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "request_signing_key_sealed" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "previous_request_signing_key_sealed" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "previous_request_signing_key_replaced_at" bigint;