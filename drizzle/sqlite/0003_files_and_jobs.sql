CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`name` text NOT NULL,
	`is_public` integer NOT NULL,
	`mime_type` text NOT NULL,
	`original_filename` text NOT NULL,
	`store_encrypted` integer NOT NULL,
	`source` text NOT NULL,
	`processing_status` text NOT NULL,
	`processing_error` text,
	`pending_job_id` text,
	`stored_blob_key` text,
	`size_bytes` integer,
	`sha256` text,
	`stored_size_bytes` integer,
	`stored_sha256` text,
	`stored_encrypted` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "files_stored_together" CHECK(("files"."stored_blob_key" is null) = ("files"."size_bytes" is null) and ("files"."stored_blob_key" is null) = ("files"."sha256" is null) and ("files"."stored_blob_key" is null) = ("files"."stored_size_bytes" is null) and ("files"."stored_blob_key" is null) = ("files"."stored_sha256" is null) and ("files"."stored_blob_key" is null) = ("files"."stored_encrypted" is null))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `files_app_name_uq` ON `files` (`application_id`,`name`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`file_id` text NOT NULL,
	`staging_key` text NOT NULL,
	`output_key` text NOT NULL,
	`encrypt` integer NOT NULL,
	`attempts` integer NOT NULL,
	`run_after` integer NOT NULL,
	`lease_until` integer,
	`lease_owner` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `jobs_run_after_idx` ON `jobs` (`run_after`);--> statement-breakpoint
CREATE INDEX `jobs_file_idx` ON `jobs` (`file_id`);