CREATE TABLE "job_runs" (
	"name" text PRIMARY KEY NOT NULL,
	"slot" bigint NOT NULL,
	"ran_at" bigint NOT NULL
);
