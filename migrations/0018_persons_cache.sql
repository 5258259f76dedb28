-- Custom SQL migration file, put your code below! --
-- A version for the cache of people's releasable data (UserInfo reads it on every request), bumped by
-- triggers on every table it is read from, as the caches of 0003 are.
INSERT INTO `cache_versions` (`name`, `version`) VALUES ('persons', 0);
--> statement-breakpoint
CREATE TRIGGER `persons_insert_bumps_persons_cache` AFTER INSERT ON `persons`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `persons_update_bumps_persons_cache` AFTER UPDATE ON `persons`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `persons_delete_bumps_persons_cache` AFTER DELETE ON `persons`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `person_emails_insert_bumps_persons_cache` AFTER INSERT ON `person_emails`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `person_emails_update_bumps_persons_cache` AFTER UPDATE ON `person_emails`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `person_emails_delete_bumps_persons_cache` AFTER DELETE ON `person_emails`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `person_phones_insert_bumps_persons_cache` AFTER INSERT ON `person_phones`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `person_phones_update_bumps_persons_cache` AFTER UPDATE ON `person_phones`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
--> statement-breakpoint
CREATE TRIGGER `person_phones_delete_bumps_persons_cache` AFTER DELETE ON `person_phones`
BEGIN
	UPDATE `cache_versions` SET `version` = `version` + 1 WHERE `name` = 'persons';
END;
