CREATE TABLE `login_days` (
	`application_id` text NOT NULL,
	`day` integer NOT NULL,
	`logins` integer NOT NULL,
	PRIMARY KEY(`application_id`, `day`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP INDEX `sessions_user_idx`;--> statement-breakpoint
DROP INDEX `sessions_app_created_idx`;--> statement-breakpoint
CREATE INDEX `sessions_user_expires_idx` ON `sessions` (`user_id`,`expires_at`);--> statement-breakpoint
CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);