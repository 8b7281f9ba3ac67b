CREATE TABLE `user_variables` (
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `name`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `applications` ADD `max_user_variables` integer DEFAULT 100 NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `device_reset_cooldown_hours` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `last_device_reset_at` integer;