ALTER TABLE `authorization_requests` ADD `face_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `authorization_requests` ADD `last_face_failure` text;