-- Every write to an application's variables, announcements or files bumps its content_version, whoever
-- makes it, so the content cache is never served past a change (docs/choices.md, "The content cache").
CREATE TRIGGER `variables_content_insert` AFTER INSERT ON `variables` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `variables_content_update` AFTER UPDATE ON `variables` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `variables_content_delete` AFTER DELETE ON `variables` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = OLD.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `announcements_content_insert` AFTER INSERT ON `announcements` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `announcements_content_update` AFTER UPDATE ON `announcements` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `announcements_content_delete` AFTER DELETE ON `announcements` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = OLD.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `files_content_insert` AFTER INSERT ON `files` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `files_content_update` AFTER UPDATE ON `files` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `files_content_delete` AFTER DELETE ON `files` BEGIN UPDATE `applications` SET `content_version` = `content_version` + 1 WHERE `id` = OLD.`application_id`; END;
