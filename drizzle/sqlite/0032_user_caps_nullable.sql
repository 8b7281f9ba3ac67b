PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_users` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`username` text NOT NULL,
	`username_key` text NOT NULL,
	`credential_type` text NOT NULL,
	`password_hash` text,
	`license_id` text,
	`allowed_devices` integer,
	`allowed_sessions` integer,
	`active_until` integer,
	`is_lifetime` integer NOT NULL,
	`timed_out_until` integer,
	`timeout_reason` text,
	`last_ip` text,
	`created_at` integer NOT NULL,
	`last_device_reset_at` integer,
	`plan_id` text,
	`entitlements` text DEFAULT '[]' NOT NULL,
	`trial_started_at` integer,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_users`("id", "application_id", "username", "username_key", "credential_type", "password_hash", "license_id", "allowed_devices", "allowed_sessions", "active_until", "is_lifetime", "timed_out_until", "timeout_reason", "last_ip", "created_at", "last_device_reset_at", "plan_id", "entitlements", "trial_started_at") SELECT "id", "application_id", "username", "username_key", "credential_type", "password_hash", "license_id", "allowed_devices", "allowed_sessions", "active_until", "is_lifetime", "timed_out_until", "timeout_reason", "last_ip", "created_at", "last_device_reset_at", "plan_id", "entitlements", "trial_started_at" FROM `users`;--> statement-breakpoint
DROP TABLE `users`;--> statement-breakpoint
ALTER TABLE `__new_users` RENAME TO `users`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `users_app_license_idx` ON `users` (`application_id`,`license_id`);--> statement-breakpoint
CREATE INDEX `users_app_created_idx` ON `users` (`application_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `users_active_until_idx` ON `users` (`active_until`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_app_username_key_uq` ON `users` (`application_id`,`username_key`);