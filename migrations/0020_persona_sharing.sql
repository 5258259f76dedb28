CREATE TABLE `persona_document_sharing` (
	`session_id_hash` text NOT NULL,
	`document_id` text NOT NULL,
	`share_enabled` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`session_id_hash`, `document_id`),
	FOREIGN KEY (`document_id`) REFERENCES `identity_documents`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
