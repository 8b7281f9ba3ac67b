ALTER TABLE `users` ADD `holds_add_ons` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Plans are read with the content app_context serves, so their writes bump content_version as the
-- content's own do (docs/plans.md, "Entitlements").
CREATE TRIGGER `plans_content_insert` AFTER INSERT ON `plans` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `plans_content_update` AFTER UPDATE ON `plans` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `plans_content_delete` AFTER DELETE ON `plans` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = OLD.`application_id`; END;
--> statement-breakpoint
-- Users granted an add-on before the flag existed hold it.
UPDATE `users` SET `holds_add_ons` = 1 WHERE `id` IN (SELECT `user_id` FROM `add_on_grants`);
