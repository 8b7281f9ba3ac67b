CREATE TABLE `sign_up_counters` (
	`application_id` text NOT NULL,
	`scope` text NOT NULL,
	`window_start` integer NOT NULL,
	`sign_ups` integer NOT NULL,
	PRIMARY KEY(`application_id`, `scope`)
);
