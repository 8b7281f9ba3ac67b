-- Every write to an application's bans bumps its bans_version, whoever makes it, so a remembered
-- ban probe is never used past a change (docs/choices.md, "Bans").
CREATE TRIGGER `bans_version_insert` AFTER INSERT ON `bans` BEGIN UPDATE `applications` SET `bans_version` = `bans_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `bans_version_update` AFTER UPDATE ON `bans` BEGIN UPDATE `applications` SET `bans_version` = `bans_version` + 1 WHERE `id` = NEW.`application_id`; END;
--> statement-breakpoint
CREATE TRIGGER `bans_version_delete` AFTER DELETE ON `bans` BEGIN UPDATE `applications` SET `bans_version` = `bans_version` + 1 WHERE `id` = OLD.`application_id`; END;
