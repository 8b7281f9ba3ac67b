-- Every write to an application's bans bumps its bans_version, whoever makes it, so a remembered
-- ban probe is never used past a change (docs/choices.md, "Bans").
CREATE FUNCTION "bump_bans_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "applications" SET "bans_version" = "bans_version" + 1 WHERE "id" = OLD."application_id";
  ELSE
    UPDATE "applications" SET "bans_version" = "bans_version" + 1 WHERE "id" = NEW."application_id";
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "bans_version" AFTER INSERT OR UPDATE OR DELETE ON "bans" FOR EACH ROW EXECUTE FUNCTION "bump_bans_version"();
