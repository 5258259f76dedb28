ALTER TABLE "authorization_requests" ADD COLUMN "face_challenge" text;
--> statement-breakpoint
ALTER TABLE "authorization_requests" ADD COLUMN "face_challenge_issued_at" bigint;