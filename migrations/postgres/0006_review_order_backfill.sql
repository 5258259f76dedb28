-- Hand-written migration for PostgreSQL --
-- Reviews written before 0005 have no insertion order on record: creation time, then id, stands in for it.
UPDATE "production_reviews" SET "seq" = o."n"
	FROM (SELECT "id", row_number() OVER (ORDER BY "created_at", "id") AS "n" FROM "production_reviews") o
	WHERE "production_reviews"."id" = o."id";
