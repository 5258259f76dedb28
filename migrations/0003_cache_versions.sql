-- Custom SQL migration file, put your code below! --
-- One version per in-memory cache, bumped by triggers on every table the cache is read from, so any
-- writer (this process, another one, the CLI) invalidates it; a reader fetches every version in one
-- statement. Replaces client_registry_version (0001), which served the client cache alone.
CREATE TABLE `cache_versions` (
	`name` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
) STRICT, WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `cache_versions` (`name`, `version`) SELECT 'clients', `version` FROM `client_registry_version`;
--> statement-breakpoint
INSERT INTO `cache_versions` (`name`, `version`) VALUES ('capabilities', 0), ('signing_keys', 0);
--> statement-breakpoint
DROP TRIGGER `applications_insert_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `applications_update_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `applications_delete_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `application_environments_insert_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `application_environments_update_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `application_environments_delete_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `redirect_uris_insert_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `redirect_uris_update_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `redirect_uris_delete_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `client_secrets_insert_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `client_secrets_update_bumps_client_registry`;
--> statement-breakpoint
DROP TRIGGER `client_secrets_delete_bumps_client_registry`;
--> statement-breakpoint
DROP TABLE `client_registry_version`;
--> statement-breakpoint
CREATE TRIGGER `applications_insert_bumps_clients_cache` AFTER INSERT ON `applications`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `applications_update_bumps_clients_cache` AFTER UPDATE ON `applications`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `applications_delete_bumps_clients_cache` AFTER DELETE ON `applications`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `application_environments_insert_bumps_clients_cache` AFTER INSERT ON `application_environments`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `application_environments_update_bumps_clients_cache` AFTER UPDATE ON `application_environments`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `application_environments_delete_bumps_clients_cache` AFTER DELETE ON `application_environments`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `redirect_uris_insert_bumps_clients_cache` AFTER INSERT ON `redirect_uris`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `redirect_uris_update_bumps_clients_cache` AFTER UPDATE ON `redirect_uris`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `redirect_uris_delete_bumps_clients_cache` AFTER DELETE ON `redirect_uris`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `client_secrets_insert_bumps_clients_cache` AFTER INSERT ON `client_secrets`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `client_secrets_update_bumps_clients_cache` AFTER UPDATE ON `client_secrets`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `client_secrets_delete_bumps_clients_cache` AFTER DELETE ON `client_secrets`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `capability_overrides_insert_bumps_capabilities_cache` AFTER INSERT ON `capability_overrides`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'capabilities';
END;
--> statement-breakpoint
CREATE TRIGGER `capability_overrides_update_bumps_capabilities_cache` AFTER UPDATE ON `capability_overrides`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'capabilities';
END;
--> statement-breakpoint
CREATE TRIGGER `capability_overrides_delete_bumps_capabilities_cache` AFTER DELETE ON `capability_overrides`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'capabilities';
END;
--> statement-breakpoint
CREATE TRIGGER `signing_keys_insert_bumps_signing_keys_cache` AFTER INSERT ON `signing_keys`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'signing_keys';
END;
--> statement-breakpoint
CREATE TRIGGER `signing_keys_update_bumps_signing_keys_cache` AFTER UPDATE ON `signing_keys`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'signing_keys';
END;
--> statement-breakpoint
CREATE TRIGGER `signing_keys_delete_bumps_signing_keys_cache` AFTER DELETE ON `signing_keys`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'signing_keys';
END;
