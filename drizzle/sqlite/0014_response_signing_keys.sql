ALTER TABLE `applications` ADD `response_signing` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `request_signing` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `signature_window_seconds` integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `response_signing_public_key` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `response_signing_private_key_sealed` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `previous_response_signing_public_key` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `previous_response_signing_private_key_sealed` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `request_signing_key_sealed` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `previous_request_signing_key_sealed` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `previous_request_signing_key_replaced_at` integer;