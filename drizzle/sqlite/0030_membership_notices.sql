CREATE TABLE `membership_notices` (
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`period_end` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `kind`, `period_end`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `applications` ADD `expiry_notice_days` integer DEFAULT 7 NOT NULL;--> statement-breakpoint
CREATE INDEX `users_active_until_idx` ON `users` (`active_until`);