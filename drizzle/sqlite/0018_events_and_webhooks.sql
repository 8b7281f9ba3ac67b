CREATE TABLE `audit_chain_heads` (
	`application_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`hash` text NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`pos` integer DEFAULT 0 NOT NULL,
	`occurred_at` integer NOT NULL,
	`action` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`actor_ip` text,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`target_label` text,
	`data` text NOT NULL,
	`changes` text,
	`outcome` text NOT NULL,
	`seq` integer,
	`hash` text,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_unchained_idx` ON `events` (`seq`,`pos`);--> statement-breakpoint
CREATE INDEX `events_pos_idx` ON `events` (`pos`);--> statement-breakpoint
CREATE INDEX `events_app_pos_idx` ON `events` (`application_id`,`pos`);--> statement-breakpoint
CREATE INDEX `events_app_target_idx` ON `events` (`application_id`,`target_id`,`pos`);--> statement-breakpoint
CREATE UNIQUE INDEX `events_app_seq_uq` ON `events` (`application_id`,`seq`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`attempted_at` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer NOT NULL,
	`error` text,
	`response_body` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`attempted_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`run_after` integer NOT NULL,
	`lease_until` integer,
	`lease_owner` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`state`,`run_after`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_idx` ON `webhook_deliveries` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_endpoint_event_uq` ON `webhook_deliveries` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text,
	`enabled` integer NOT NULL,
	`secret_sealed` text NOT NULL,
	`previous_secret_sealed` text,
	`previous_secret_until` integer,
	`failing_since` integer,
	`disabled_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_app_idx` ON `webhook_endpoints` (`application_id`);