ALTER TABLE `identity_documents` ADD `issue_date` text;--> statement-breakpoint
ALTER TABLE `identity_documents` ADD `check_method` text;