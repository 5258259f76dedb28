ALTER TABLE "production_reviews" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE INDEX "production_reviews_seq" ON "production_reviews" USING btree ("seq");