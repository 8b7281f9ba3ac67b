CREATE TABLE `license_files` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`hardware_id` text,
	`issued_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`issued_by_type` text NOT NULL,
	`issued_by_id` text NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `license_files_user_expires_idx` ON `license_files` (`user_id`,`expires_at`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `address` text;