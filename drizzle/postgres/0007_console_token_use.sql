ALTER TABLE "console_tokens" ADD COLUMN "kind" text DEFAULT 'bearer' NOT NULL;--> statement-breakpoint
ALTER TABLE "console_tokens" ADD COLUMN "last_used_at" bigint;