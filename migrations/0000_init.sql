CREATE TABLE `application_environments` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`environment` text NOT NULL,
	`client_id` text NOT NULL,
	`scopes` text NOT NULL,
	`document_types` text DEFAULT '[]' NOT NULL,
	`document_countries` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `application_environments_client_id` ON `application_environments` (`client_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `application_environments_app_env` ON `application_environments` (`application_id`,`environment`);--> statement-breakpoint
CREATE TABLE `applications` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`owner_developer_id` text,
	`pkce` text DEFAULT 'required' NOT NULL,
	`full_number_approved` integer DEFAULT false NOT NULL,
	`plan` text DEFAULT 'default' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_developer_id`) REFERENCES `developers`(`id`) ON UPDATE no action ON DELETE set null
) STRICT;
--> statement-breakpoint
CREATE TABLE `client_secrets` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `client_secrets_env` ON `client_secrets` (`environment_id`);--> statement-breakpoint
CREATE TABLE `production_reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`status` text NOT NULL,
	`justification` text DEFAULT '' NOT NULL,
	`scopes` text DEFAULT '[]' NOT NULL,
	`redirect_uris` text,
	`document_types` text,
	`document_countries` text,
	`full_number_justification` text,
	`decision_reason` text,
	`requested_by` text,
	`created_at` integer NOT NULL,
	`decided_at` integer,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `production_reviews_app` ON `production_reviews` (`application_id`);--> statement-breakpoint
CREATE TABLE `production_secret_reveals` (
	`application_id` text PRIMARY KEY NOT NULL,
	`sealed_secret` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `production_secret_reveals_expiry` ON `production_secret_reveals` (`expires_at`);--> statement-breakpoint
CREATE TABLE `redirect_uris` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`environment_id` text NOT NULL,
	`uri` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `redirect_uris_env_uri` ON `redirect_uris` (`environment_id`,`uri`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`target` text,
	`details` text DEFAULT '{}' NOT NULL
) STRICT;
--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `capability_overrides` (
	`country` text NOT NULL,
	`document_type` text NOT NULL,
	`available` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`country`, `document_type`)
) STRICT;
--> statement-breakpoint
CREATE TABLE `consents` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`person_id` text NOT NULL,
	`session_id_hash` text,
	`scopes` text NOT NULL,
	`purpose` text NOT NULL,
	`status` text NOT NULL,
	`granted_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_used_at` integer,
	`ended_at` integer,
	`end_reason` text,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `consents_person` ON `consents` (`person_id`,`status`);--> statement-breakpoint
CREATE INDEX `consents_env` ON `consents` (`environment_id`,`status`);--> statement-breakpoint
CREATE INDEX `consents_expires` ON `consents` (`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `consents_session` ON `consents` (`session_id_hash`) WHERE session_id_hash IS NOT NULL;--> statement-breakpoint
CREATE TABLE `developer_api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`developer_id` text NOT NULL,
	`environment` text NOT NULL,
	`key_hash` text NOT NULL,
	`label` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`developer_id`) REFERENCES `developers`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `developer_api_keys_hash` ON `developer_api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `developer_api_keys_dev` ON `developer_api_keys` (`developer_id`);--> statement-breakpoint
CREATE TABLE `developer_email_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`developer_id` text NOT NULL,
	`purpose` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`developer_id`) REFERENCES `developers`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `developer_email_tokens_token_hash_unique` ON `developer_email_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `developer_email_tokens_dev` ON `developer_email_tokens` (`developer_id`);--> statement-breakpoint
CREATE TABLE `developer_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `developer_invitations_token_hash_unique` ON `developer_invitations` (`token_hash`);--> statement-breakpoint
CREATE TABLE `developers` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`password_hash` text,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL,
	`email_verified_at` integer
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `developers_email` ON `developers` (`email`);--> statement-breakpoint
CREATE TABLE `instance_secret_checks` (
	`name` text PRIMARY KEY NOT NULL,
	`check` text NOT NULL,
	`recorded_at` integer NOT NULL
) STRICT;
--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`activated_at` integer,
	`retired_at` integer,
	`remove_after` integer
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `signing_keys_one_active` ON `signing_keys` (`state`) WHERE state = 'active';--> statement-breakpoint
CREATE TABLE `access_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`environment_id` text NOT NULL,
	`consent_id` text NOT NULL,
	`person_id` text NOT NULL,
	`scopes` text NOT NULL,
	`acr` text NOT NULL,
	`liveness_verified` integer NOT NULL,
	`face_match_verified` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`consent_id`) REFERENCES `consents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `access_tokens_consent` ON `access_tokens` (`consent_id`);--> statement-breakpoint
CREATE INDEX `access_tokens_expires` ON `access_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `authorization_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`code_hash` text NOT NULL,
	`environment_id` text NOT NULL,
	`client_id` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`code_challenge` text,
	`nonce` text,
	`scopes` text NOT NULL,
	`consent_id` text NOT NULL,
	`person_id` text NOT NULL,
	`auth_time` integer NOT NULL,
	`acr` text NOT NULL,
	`amr` text NOT NULL,
	`liveness_verified` integer NOT NULL,
	`face_match_verified` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`token_id` text,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`consent_id`) REFERENCES `consents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `authorization_codes_expires` ON `authorization_codes` (`expires_at`);--> statement-breakpoint
CREATE TABLE `authorization_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`session_id_hash` text,
	`redirect_uri` text NOT NULL,
	`scopes` text NOT NULL,
	`state` text NOT NULL,
	`nonce` text,
	`code_challenge` text,
	`purpose` text DEFAULT '' NOT NULL,
	`display` text DEFAULT 'page' NOT NULL,
	`prompt` text,
	`max_age` integer,
	`login_hint` text,
	`ui_locales` text,
	`person_id` text,
	`auth_time` integer,
	`amr` text DEFAULT '[]' NOT NULL,
	`acr` text,
	`liveness_verified` integer,
	`face_match_verified` integer,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `application_environments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `authorization_requests_expires` ON `authorization_requests` (`expires_at`);--> statement-breakpoint
CREATE TABLE `identity_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`person_id` text NOT NULL,
	`document_type` text NOT NULL,
	`issuing_country` text NOT NULL,
	`document_number` text NOT NULL,
	`display_name` text NOT NULL,
	`expiry_date` text NOT NULL,
	`validity_status` text NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`verified_at` integer,
	`share_enabled` integer DEFAULT true NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`primary` integer DEFAULT false NOT NULL,
	`attestation_id` text NOT NULL,
	`proof_status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `identity_documents_person` ON `identity_documents` (`person_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `identity_documents_natural` ON `identity_documents` (`person_id`,`document_type`,`issuing_country`,`document_number`);--> statement-breakpoint
CREATE TABLE `person_emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`person_id` text NOT NULL,
	`email` text NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`primary` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `person_emails_email` ON `person_emails` (`email`);--> statement-breakpoint
CREATE INDEX `person_emails_person` ON `person_emails` (`person_id`);--> statement-breakpoint
CREATE TABLE `person_phones` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`person_id` text NOT NULL,
	`phone` text NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`primary` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `person_phones_person` ON `person_phones` (`person_id`);--> statement-breakpoint
CREATE TABLE `persons` (
	`id` text PRIMARY KEY NOT NULL,
	`external_id` text NOT NULL,
	`environment` text NOT NULL,
	`given_name` text,
	`family_name` text,
	`name` text,
	`preferred_username` text,
	`locale` text,
	`legal_given_name` text,
	`legal_family_name` text,
	`birthdate` text,
	`nationalities` text DEFAULT '[]' NOT NULL,
	`photo` text,
	`photo_verified` integer DEFAULT false NOT NULL,
	`password_hash` text,
	`assurance_level` text DEFAULT 'none' NOT NULL,
	`identity_verified` integer DEFAULT false NOT NULL,
	`face_template_ref` text,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `persons_external_id` ON `persons` (`environment`,`external_id`);--> statement-breakpoint
CREATE TABLE `rate_limit_buckets` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
) STRICT;
--> statement-breakpoint
CREATE TABLE `portal_results` (
	`session_id_hash` text NOT NULL,
	`slot` text NOT NULL,
	`sealed` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`session_id_hash`, `slot`),
	FOREIGN KEY (`session_id_hash`) REFERENCES `sessions`(`id_hash`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `portal_results_expiry` ON `portal_results` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject_id` text,
	`csrf_secret` text NOT NULL,
	`auth_time` integer,
	`amr` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL
) STRICT;
--> statement-breakpoint
CREATE INDEX `sessions_subject` ON `sessions` (`subject_id`);--> statement-breakpoint
CREATE TABLE `signin_attempts` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`failures` integer NOT NULL
) STRICT;
--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status` text NOT NULL,
	`response_status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`next_attempt_at` integer,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint` ON `webhook_attempts` (`endpoint_id`,`attempted_at`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_event` ON `webhook_attempts` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_time` ON `webhook_attempts` (`attempted_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_expires_at` integer,
	`lease_token` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `webhook_events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_due` ON `webhook_deliveries` (`endpoint_id`,`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_lease` ON `webhook_deliveries` (`lease_expires_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`environment` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_app` ON `webhook_endpoints` (`application_id`,`environment`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`application_id` text NOT NULL,
	`environment` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL
) STRICT;
--> statement-breakpoint
CREATE INDEX `webhook_events_created` ON `webhook_events` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_secrets` (
	`id` text PRIMARY KEY NOT NULL,
	`endpoint_id` text NOT NULL,
	`ciphertext` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `webhook_secrets_endpoint` ON `webhook_secrets` (`endpoint_id`);