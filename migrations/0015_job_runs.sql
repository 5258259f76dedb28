CREATE TABLE `job_runs` (
	`name` text PRIMARY KEY NOT NULL,
	`slot` integer NOT NULL,
	`ran_at` integer NOT NULL
) STRICT;
