ALTER TABLE `applications` ADD `propagated_ip_ban_hours` integer DEFAULT 24;--> statement-breakpoint
ALTER TABLE `bans` ADD `propagated_from` text;--> statement-breakpoint
ALTER TABLE `bans` ADD `expires_at` integer;--> statement-breakpoint
CREATE INDEX `bans_app_propagated_from_idx` ON `bans` (`application_id`,`propagated_from`);