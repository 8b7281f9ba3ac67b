CREATE TABLE `owner_ips` (
	`owner_id` text NOT NULL,
	`ip` text NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `ip`),
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `applications` ADD `ban_propagation_to_addresses` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `sign_ups_per_hour` integer;