CREATE TABLE `login_days` (
	`application_id` text NOT NULL,
	`day` integer NOT NULL,
	`logins` integer NOT NULL,
	PRIMARY KEY(`application_id`, `day`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Logins counted before this table existed: one a session opened, by UTC day (the overview's rule).
INSERT INTO `login_days` (`application_id`, `day`, `logins`) SELECT `application_id`, (`created_at` / 86400000) * 86400000, count(*) FROM `sessions` GROUP BY 1, 2;--> statement-breakpoint
DROP INDEX `sessions_user_idx`;--> statement-breakpoint
DROP INDEX `sessions_app_created_idx`;--> statement-breakpoint
ALTER TABLE `sessions` ADD `legacy` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `sessions_user_expires_idx` ON `sessions` (`user_id`,`expires_at`);--> statement-breakpoint
CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
ALTER TABLE `applications` ADD `propagated_ip_ban_hours` integer DEFAULT 24;--> statement-breakpoint
ALTER TABLE `bans` ADD `propagated_from` text;--> statement-breakpoint
ALTER TABLE `bans` ADD `expires_at` integer;--> statement-breakpoint
CREATE INDEX `bans_app_propagated_from_idx` ON `bans` (`application_id`,`propagated_from`);