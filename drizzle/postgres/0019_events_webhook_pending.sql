ALTER TABLE "events" ADD COLUMN "webhook_pending" integer;--> statement-breakpoint
CREATE INDEX "events_webhook_pending_idx" ON "events" USING btree ("webhook_pending","pos");