ALTER TABLE `access_tokens` ADD `claims` text;--> statement-breakpoint
ALTER TABLE `authorization_codes` ADD `claims` text;--> statement-breakpoint
ALTER TABLE `authorization_requests` ADD `claims` text;