-- Hand-written migration for PostgreSQL --
-- Rows written before 0002 have no insertion order on record: creation time, then id, stands in for it.
UPDATE "persons" SET "seq" = o."n"
	FROM (SELECT "id", row_number() OVER (ORDER BY "created_at", "id") AS "n" FROM "persons") o
	WHERE "persons"."id" = o."id";
--> statement-breakpoint
UPDATE "identity_documents" SET "seq" = o."n"
	FROM (SELECT "id", row_number() OVER (ORDER BY "created_at", "id") AS "n" FROM "identity_documents") o
	WHERE "identity_documents"."id" = o."id";
