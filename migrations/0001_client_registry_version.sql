-- Custom SQL migration file, put your code below! --
-- Clients are kept in memory by the OAuth endpoints and reloaded when this number changes. Triggers
-- on every table a client is read from bump it, so every writer (this process, another one, the
-- CLI) invalidates that cache without having to know about it.
CREATE TABLE `client_registry_version` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`version` integer NOT NULL
) STRICT;
--> statement-breakpoint
INSERT INTO `client_registry_version` (`id`, `version`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `applications_insert_bumps_client_registry` AFTER INSERT ON `applications`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `applications_update_bumps_client_registry` AFTER UPDATE ON `applications`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `applications_delete_bumps_client_registry` AFTER DELETE ON `applications`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `application_environments_insert_bumps_client_registry` AFTER INSERT ON `application_environments`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `application_environments_update_bumps_client_registry` AFTER UPDATE ON `application_environments`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `application_environments_delete_bumps_client_registry` AFTER DELETE ON `application_environments`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `redirect_uris_insert_bumps_client_registry` AFTER INSERT ON `redirect_uris`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `redirect_uris_update_bumps_client_registry` AFTER UPDATE ON `redirect_uris`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `redirect_uris_delete_bumps_client_registry` AFTER DELETE ON `redirect_uris`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `client_secrets_insert_bumps_client_registry` AFTER INSERT ON `client_secrets`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `client_secrets_update_bumps_client_registry` AFTER UPDATE ON `client_secrets`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `client_secrets_delete_bumps_client_registry` AFTER DELETE ON `client_secrets`
BEGIN
	UPDATE `client_registry_version` SET `version` = `version` + 1;
END;
