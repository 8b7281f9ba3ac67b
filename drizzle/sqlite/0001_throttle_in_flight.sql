ALTER TABLE `auth_account_counters` ADD `in_flight` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `auth_account_counters` ADD `in_flight_until` integer;