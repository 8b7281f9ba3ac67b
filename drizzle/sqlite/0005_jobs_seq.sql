ALTER TABLE `jobs` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `jobs` SET `seq` = rowid;
