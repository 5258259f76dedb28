DROP INDEX `signing_keys_one_active`;--> statement-breakpoint
ALTER TABLE `signing_keys` ADD `alg` text DEFAULT 'RS256' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `signing_keys_one_active_per_alg` ON `signing_keys` (`alg`) WHERE state = 'active';--> statement-breakpoint
ALTER TABLE `application_environments` ADD `id_token_signed_response_alg` text DEFAULT 'RS256' NOT NULL;