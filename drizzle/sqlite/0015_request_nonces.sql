CREATE TABLE `request_nonces` (
	`application_id` text NOT NULL,
	`nonce` text NOT NULL,
	`held_until` integer NOT NULL,
	PRIMARY KEY(`application_id`, `nonce`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `request_nonces_held_until_idx` ON `request_nonces` (`held_until`);