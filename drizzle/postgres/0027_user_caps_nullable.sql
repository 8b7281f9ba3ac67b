ALTER TABLE "users" ALTER COLUMN "allowed_devices" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "allowed_sessions" DROP NOT NULL;