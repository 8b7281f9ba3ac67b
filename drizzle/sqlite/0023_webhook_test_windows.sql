CREATE TABLE `webhook_test_windows` (
	`application_id` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`sends` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
