ALTER TABLE `application_environments` ADD `minimum_acr` text;--> statement-breakpoint
ALTER TABLE `authorization_requests` ADD `required_acr` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `face_verified_at` integer;