ALTER TABLE `authorization_requests` ADD `face_challenge` text;--> statement-breakpoint
ALTER TABLE `authorization_requests` ADD `face_challenge_issued_at` integer;