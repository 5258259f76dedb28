-- Custom SQL migration file, put your code below! --
-- The client registry reads web_origins (CORS of the token, UserInfo and documents endpoints), so a
-- change to it moves the clients cache version like the other tables in 0003.
CREATE TRIGGER `web_origins_insert_bumps_clients_cache` AFTER INSERT ON `web_origins`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `web_origins_update_bumps_clients_cache` AFTER UPDATE ON `web_origins`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `web_origins_delete_bumps_clients_cache` AFTER DELETE ON `web_origins`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
