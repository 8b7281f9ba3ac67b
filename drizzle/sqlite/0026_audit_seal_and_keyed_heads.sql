ALTER TABLE `audit_chain_heads` ADD `keyed` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `seal` text;