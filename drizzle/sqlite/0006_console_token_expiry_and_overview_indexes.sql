ALTER TABLE `console_tokens` ADD `expires_at` integer;--> statement-breakpoint
CREATE INDEX `sessions_app_created_idx` ON `sessions` (`application_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `users_app_created_idx` ON `users` (`application_id`,`created_at`);