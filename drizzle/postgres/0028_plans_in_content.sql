ALTER TABLE "users" ADD COLUMN "holds_add_ons" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Plans are read with the content app_context serves, so their writes bump content_version as the
-- content's own do (docs/plans.md, "Entitlements").
CREATE TRIGGER "plans_content" AFTER INSERT OR UPDATE OR DELETE ON "plans" FOR EACH ROW EXECUTE FUNCTION "bump_content_version"();
--> statement-breakpoint
-- Users granted an add-on before the flag existed hold it.
UPDATE "users" SET "holds_add_ons" = true WHERE "id" IN (SELECT "user_id" FROM "add_on_grants");
