CREATE TABLE `auth_account_address_counters` (
	`application_id` text NOT NULL,
	`account_key` text NOT NULL,
	`ip` text NOT NULL,
	`failures` integer NOT NULL,
	`locked_until` integer,
	`lockouts` integer NOT NULL,
	`in_flight` integer DEFAULT 0 NOT NULL,
	`in_flight_until` integer,
	PRIMARY KEY(`application_id`, `account_key`, `ip`)
);
--> statement-breakpoint
CREATE TABLE `auth_account_windows` (
	`application_id` text NOT NULL,
	`account_key` text NOT NULL,
	`window_start` integer NOT NULL,
	`failures` integer NOT NULL,
	PRIMARY KEY(`application_id`, `account_key`)
);
