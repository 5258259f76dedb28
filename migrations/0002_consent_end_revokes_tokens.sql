-- Custom SQL migration file, put your code below! --
-- A consent that ends (revoked, expired, disconnected) takes its access tokens with it, whoever ends
-- it: the cascade lives with the data, so the consent domain does not reach into OAuth's table.
CREATE TRIGGER `consent_end_revokes_access_tokens` AFTER UPDATE OF `status` ON `consents`
WHEN OLD.`status` = 'active' AND NEW.`status` != 'active'
BEGIN
	UPDATE `access_tokens` SET `revoked_at` = NEW.`ended_at` WHERE `consent_id` = NEW.`id` AND `revoked_at` IS NULL;
END;
