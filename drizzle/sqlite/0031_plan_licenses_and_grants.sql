CREATE TABLE `add_on_grants` (
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`plan_id` text NOT NULL,
	`ends_at` integer,
	`granted_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `plan_id`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `license_redemptions` (
	`license_id` text NOT NULL,
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`redeemed_at` integer NOT NULL,
	`plan_from` text,
	`minutes` integer,
	PRIMARY KEY(`license_id`, `user_id`),
	FOREIGN KEY (`license_id`) REFERENCES `licenses`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `license_redemptions_user_idx` ON `license_redemptions` (`user_id`);--> statement-breakpoint
CREATE TABLE `trial_ledger` (
	`application_id` text NOT NULL,
	`hardware_digest` text NOT NULL,
	`started_at` integer NOT NULL,
	PRIMARY KEY(`application_id`, `hardware_digest`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `adjustments` ADD `plan_from` text;--> statement-breakpoint
ALTER TABLE `adjustments` ADD `plan_to` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `trial_plan_id` text;--> statement-breakpoint
ALTER TABLE `licenses` ADD `plan_id` text;--> statement-breakpoint
ALTER TABLE `licenses` ADD `seats` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `licenses` ADD `redemptions` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `plan_id` text;--> statement-breakpoint
ALTER TABLE `users` ADD `entitlements` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `trial_started_at` integer;--> statement-breakpoint
-- Licenses redeemed before seats count one redemption (docs/plans.md, "Seats").
UPDATE `licenses` SET `redemptions` = 1 WHERE `used_at` IS NOT NULL;
