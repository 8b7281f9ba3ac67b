CREATE TABLE `plans` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`duration_minutes` integer,
	`entitlements` text NOT NULL,
	`max_devices` integer,
	`max_sessions` integer,
	`seats` integer NOT NULL,
	`grace_minutes` integer NOT NULL,
	`trial` integer NOT NULL,
	`floating` integer NOT NULL,
	`max_borrow_minutes` integer NOT NULL,
	`archived` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `plans_app_name_uq` ON `plans` (`application_id`,`name`);