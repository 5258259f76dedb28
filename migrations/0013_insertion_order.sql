ALTER TABLE `identity_documents` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `identity_documents_seq` ON `identity_documents` (`seq`);--> statement-breakpoint
ALTER TABLE `persons` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `persons_seq` ON `persons` (`seq`);