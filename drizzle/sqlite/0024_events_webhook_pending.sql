ALTER TABLE `events` ADD `webhook_pending` integer;--> statement-breakpoint
CREATE INDEX `events_webhook_pending_idx` ON `events` (`webhook_pending`,`pos`);