CREATE TABLE `post_logout_redirect_uris` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`environment_id` text NOT NULL,
	`uri` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `post_logout_redirect_uris_env_uri` ON `post_logout_redirect_uris` (`environment_id`,`uri`);--> statement-breakpoint
ALTER TABLE `production_reviews` ADD `post_logout_redirect_uris` text;