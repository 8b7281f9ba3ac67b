-- Every write to an application's variables, announcements or files bumps its content_version, whoever
-- makes it, so the content cache is never served past a change (docs/choices.md, "The content cache").
CREATE FUNCTION "bump_content_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "applications" SET "content_version" = "content_version" + 1 WHERE "id" = OLD."application_id";
  ELSE
    UPDATE "applications" SET "content_version" = "content_version" + 1 WHERE "id" = NEW."application_id";
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "variables_content" AFTER INSERT OR UPDATE OR DELETE ON "variables" FOR EACH ROW EXECUTE FUNCTION "bump_content_version"();
--> statement-breakpoint
CREATE TRIGGER "announcements_content" AFTER INSERT OR UPDATE OR DELETE ON "announcements" FOR EACH ROW EXECUTE FUNCTION "bump_content_version"();
--> statement-breakpoint
CREATE TRIGGER "files_content" AFTER INSERT OR UPDATE OR DELETE ON "files" FOR EACH ROW EXECUTE FUNCTION "bump_content_version"();
