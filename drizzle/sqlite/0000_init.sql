CREATE TABLE `adjustments` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`type` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`minutes` integer,
	`grants_lifetime` integer NOT NULL,
	`revokes_lifetime` integer NOT NULL,
	`license_id` text,
	`reason` text,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `adjustments_user_idx` ON `adjustments` (`user_id`);--> statement-breakpoint
CREATE TABLE `announcements` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`title` text NOT NULL,
	`content_html` text NOT NULL,
	`status` text NOT NULL,
	`publish_from` integer NOT NULL,
	`publish_until` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `announcements_app_idx` ON `announcements` (`application_id`);--> statement-breakpoint
CREATE TABLE `applications` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	`anonymous_access` integer NOT NULL,
	`device_auth` integer NOT NULL,
	`legacy_auth` integer NOT NULL,
	`token_auth` integer NOT NULL,
	`session_ttl_seconds` integer NOT NULL,
	`default_allowed_devices` integer NOT NULL,
	`default_allowed_sessions` integer NOT NULL,
	`ban_propagation` integer NOT NULL,
	`password_min_length` integer NOT NULL,
	`api_key` text NOT NULL,
	`api_secret_digest` text NOT NULL,
	`admin_api_key_digest` text NOT NULL,
	`files_key_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `applications_api_key_unique` ON `applications` (`api_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `applications_admin_api_key_digest_unique` ON `applications` (`admin_api_key_digest`);--> statement-breakpoint
CREATE INDEX `applications_owner_idx` ON `applications` (`owner_id`);--> statement-breakpoint
CREATE TABLE `auth_account_counters` (
	`application_id` text NOT NULL,
	`account_key` text NOT NULL,
	`failures` integer NOT NULL,
	`locked_until` integer,
	`lockouts` integer NOT NULL,
	PRIMARY KEY(`application_id`, `account_key`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `auth_ip_counters` (
	`application_id` text NOT NULL,
	`ip` text NOT NULL,
	`window_start` integer NOT NULL,
	`failures` integer NOT NULL,
	PRIMARY KEY(`application_id`, `ip`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `bans` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`type` text NOT NULL,
	`value` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bans_app_type_value_uq` ON `bans` (`application_id`,`type`,`value`);--> statement-breakpoint
CREATE TABLE `console_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`digest` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_tokens_digest_unique` ON `console_tokens` (`digest`);--> statement-breakpoint
CREATE INDEX `console_tokens_owner_idx` ON `console_tokens` (`owner_id`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`hardware_id` text NOT NULL,
	`registered_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_user_hardware_uq` ON `devices` (`user_id`,`hardware_id`);--> statement-breakpoint
CREATE TABLE `licenses` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`code_digest` text NOT NULL,
	`code_sealed` text NOT NULL,
	`minutes` integer,
	`note` text,
	`created_at` integer NOT NULL,
	`used_at` integer,
	`used_by_user_id` text,
	`banned` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `licenses_code_digest_unique` ON `licenses` (`code_digest`);--> statement-breakpoint
CREATE INDEX `licenses_app_idx` ON `licenses` (`application_id`);--> statement-breakpoint
CREATE TABLE `owners` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owners_email_unique` ON `owners` (`email`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`hardware_id` text,
	`token_digest` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `user_ips` (
	`user_id` text NOT NULL,
	`ip` text NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`user_id`, `ip`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`username` text NOT NULL,
	`username_key` text NOT NULL,
	`credential_type` text NOT NULL,
	`password_hash` text,
	`license_id` text,
	`allowed_devices` integer NOT NULL,
	`allowed_sessions` integer NOT NULL,
	`active_until` integer,
	`is_lifetime` integer NOT NULL,
	`timed_out_until` integer,
	`timeout_reason` text,
	`last_ip` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `users_app_license_idx` ON `users` (`application_id`,`license_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_app_username_key_uq` ON `users` (`application_id`,`username_key`);--> statement-breakpoint
CREATE TABLE `variables` (
	`application_id` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`is_public` integer NOT NULL,
	PRIMARY KEY(`application_id`, `name`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
