CREATE TABLE `refresh_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`user_id` text NOT NULL,
	`family_id` text NOT NULL,
	`hardware_id` text NOT NULL,
	`token_digest` text NOT NULL,
	`session_id` text,
	`issued_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`spent_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refresh_tokens_token_digest_unique` ON `refresh_tokens` (`token_digest`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_family_idx` ON `refresh_tokens` (`family_id`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_user_idx` ON `refresh_tokens` (`user_id`,`hardware_id`);--> statement-breakpoint
ALTER TABLE `applications` ADD `heartbeat_seconds` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `refresh_ttl_days` integer DEFAULT 30;--> statement-breakpoint
ALTER TABLE `devices` ADD `name` text;--> statement-breakpoint
ALTER TABLE `devices` ADD `platform` text;--> statement-breakpoint
ALTER TABLE `devices` ADD `app_version` text;--> statement-breakpoint
ALTER TABLE `devices` ADD `last_seen_at` integer;--> statement-breakpoint
ALTER TABLE `devices` ADD `last_ip` text;--> statement-breakpoint
ALTER TABLE `licenses` ADD `seat_exhausted_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `lease_expires_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `refresh_family_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `floating_license_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `borrowed` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `sessions_floating_live_idx` ON `sessions` (`floating_license_id`,`expires_at`) WHERE "sessions"."revoked_at" is null and "sessions"."floating_license_id" is not null;--> statement-breakpoint
CREATE INDEX `sessions_refresh_family_idx` ON `sessions` (`refresh_family_id`);--> statement-breakpoint
UPDATE `devices` SET `last_seen_at` = `registered_at`;
