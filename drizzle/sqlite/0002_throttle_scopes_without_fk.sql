PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_auth_account_counters` (
	`application_id` text NOT NULL,
	`account_key` text NOT NULL,
	`failures` integer NOT NULL,
	`locked_until` integer,
	`lockouts` integer NOT NULL,
	`in_flight` integer DEFAULT 0 NOT NULL,
	`in_flight_until` integer,
	PRIMARY KEY(`application_id`, `account_key`)
);
--> statement-breakpoint
INSERT INTO `__new_auth_account_counters`("application_id", "account_key", "failures", "locked_until", "lockouts", "in_flight", "in_flight_until") SELECT "application_id", "account_key", "failures", "locked_until", "lockouts", "in_flight", "in_flight_until" FROM `auth_account_counters`;--> statement-breakpoint
DROP TABLE `auth_account_counters`;--> statement-breakpoint
ALTER TABLE `__new_auth_account_counters` RENAME TO `auth_account_counters`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_auth_ip_counters` (
	`application_id` text NOT NULL,
	`ip` text NOT NULL,
	`window_start` integer NOT NULL,
	`failures` integer NOT NULL,
	PRIMARY KEY(`application_id`, `ip`)
);
--> statement-breakpoint
INSERT INTO `__new_auth_ip_counters`("application_id", "ip", "window_start", "failures") SELECT "application_id", "ip", "window_start", "failures" FROM `auth_ip_counters`;--> statement-breakpoint
DROP TABLE `auth_ip_counters`;--> statement-breakpoint
ALTER TABLE `__new_auth_ip_counters` RENAME TO `auth_ip_counters`;