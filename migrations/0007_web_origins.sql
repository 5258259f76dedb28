CREATE TABLE `web_origins` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`environment_id` text NOT NULL,
	`origin` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `web_origins_env_origin` ON `web_origins` (`environment_id`,`origin`);--> statement-breakpoint
CREATE INDEX `web_origins_origin` ON `web_origins` (`origin`);--> statement-breakpoint
ALTER TABLE `applications` ADD `policy_uri` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `tos_uri` text;--> statement-breakpoint
ALTER TABLE `production_reviews` ADD `web_origins` text;