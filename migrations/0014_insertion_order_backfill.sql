-- Custom SQL migration file, put your code below! --
-- Rows written before 0013 take their insertion order from the rowid, which ordered them until then.
UPDATE `persons` SET `seq` = rowid;
--> statement-breakpoint
UPDATE `identity_documents` SET `seq` = rowid;
