ALTER TABLE `console_tokens` ADD `kind` text DEFAULT 'bearer' NOT NULL;--> statement-breakpoint
ALTER TABLE `console_tokens` ADD `last_used_at` integer;