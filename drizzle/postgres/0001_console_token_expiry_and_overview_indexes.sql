ALTER TABLE "console_tokens" ADD COLUMN "expires_at" bigint;--> statement-breakpoint
CREATE INDEX "sessions_app_created_idx" ON "sessions" USING btree ("application_id","created_at");--> statement-breakpoint
CREATE INDEX "users_app_created_idx" ON "users" USING btree ("application_id","created_at");