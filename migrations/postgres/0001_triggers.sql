-- Hand-written migration for PostgreSQL --
-- What SQLite's hand-written migrations (0001-0003, 0008, 0010) do, in PostgreSQL's words: one version per
-- in-memory cache, bumped by a trigger on every table the cache is read from, whoever writes (every
-- instance reads the version, so a change reaches all of them at their next request); and a consent
-- that ends takes its access tokens with it. And an id left NULL takes the next number, as SQLite's
-- INTEGER PRIMARY KEY does (drizzle's SQLite dialect, which both engines share, writes NULL for it).
CREATE TABLE "cache_versions" (
	"name" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "cache_versions" ("name", "version") VALUES ('clients', 0), ('capabilities', 0), ('signing_keys', 0);
--> statement-breakpoint
CREATE FUNCTION "bump_cache_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "cache_versions" SET "version" = "version" + 1 WHERE "name" = TG_ARGV[0];
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "applications_bumps_clients_cache" AFTER INSERT OR UPDATE OR DELETE ON "applications"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('clients');
--> statement-breakpoint
CREATE TRIGGER "application_environments_bumps_clients_cache" AFTER INSERT OR UPDATE OR DELETE ON "application_environments"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('clients');
--> statement-breakpoint
CREATE TRIGGER "redirect_uris_bumps_clients_cache" AFTER INSERT OR UPDATE OR DELETE ON "redirect_uris"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('clients');
--> statement-breakpoint
CREATE TRIGGER "client_secrets_bumps_clients_cache" AFTER INSERT OR UPDATE OR DELETE ON "client_secrets"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('clients');
--> statement-breakpoint
CREATE TRIGGER "web_origins_bumps_clients_cache" AFTER INSERT OR UPDATE OR DELETE ON "web_origins"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('clients');
--> statement-breakpoint
CREATE TRIGGER "post_logout_redirect_uris_bumps_clients_cache" AFTER INSERT OR UPDATE OR DELETE ON "post_logout_redirect_uris"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('clients');
--> statement-breakpoint
CREATE TRIGGER "capability_overrides_bumps_capabilities_cache" AFTER INSERT OR UPDATE OR DELETE ON "capability_overrides"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('capabilities');
--> statement-breakpoint
CREATE TRIGGER "signing_keys_bumps_signing_keys_cache" AFTER INSERT OR UPDATE OR DELETE ON "signing_keys"
FOR EACH ROW EXECUTE FUNCTION "bump_cache_version"('signing_keys');
--> statement-breakpoint
CREATE FUNCTION "consent_end_revokes_access_tokens"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "access_tokens" SET "revoked_at" = NEW."ended_at" WHERE "consent_id" = NEW."id" AND "revoked_at" IS NULL;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "consent_end_revokes_access_tokens" AFTER UPDATE OF "status" ON "consents"
FOR EACH ROW WHEN (OLD."status" = 'active' AND NEW."status" != 'active')
EXECUTE FUNCTION "consent_end_revokes_access_tokens"();
--> statement-breakpoint
CREATE FUNCTION "fill_identity"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW."id" IS NULL THEN
		NEW."id" := nextval(pg_get_serial_sequence(TG_TABLE_NAME, 'id'));
	END IF;
	RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_fills_id" BEFORE INSERT ON "audit_log"
FOR EACH ROW EXECUTE FUNCTION "fill_identity"();
--> statement-breakpoint
CREATE TRIGGER "person_emails_fills_id" BEFORE INSERT ON "person_emails"
FOR EACH ROW EXECUTE FUNCTION "fill_identity"();
--> statement-breakpoint
CREATE TRIGGER "person_phones_fills_id" BEFORE INSERT ON "person_phones"
FOR EACH ROW EXECUTE FUNCTION "fill_identity"();
--> statement-breakpoint
CREATE TRIGGER "redirect_uris_fills_id" BEFORE INSERT ON "redirect_uris"
FOR EACH ROW EXECUTE FUNCTION "fill_identity"();
--> statement-breakpoint
CREATE TRIGGER "web_origins_fills_id" BEFORE INSERT ON "web_origins"
FOR EACH ROW EXECUTE FUNCTION "fill_identity"();
--> statement-breakpoint
CREATE TRIGGER "post_logout_redirect_uris_fills_id" BEFORE INSERT ON "post_logout_redirect_uris"
FOR EACH ROW EXECUTE FUNCTION "fill_identity"();
