-- Custom SQL migration file, put your code below! --
-- The client registry (src/oauth/client.store.ts) caches post-logout redirect URIs too, so a change to
-- them moves the clients cache version like a change to redirect URIs does (0003).
CREATE TRIGGER `post_logout_redirect_uris_insert_bumps_clients_cache` AFTER INSERT ON `post_logout_redirect_uris`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `post_logout_redirect_uris_update_bumps_clients_cache` AFTER UPDATE ON `post_logout_redirect_uris`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
--> statement-breakpoint
CREATE TRIGGER `post_logout_redirect_uris_delete_bumps_clients_cache` AFTER DELETE ON `post_logout_redirect_uris`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'clients';
END;
