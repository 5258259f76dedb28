-- Hand-written migration for PostgreSQL --
-- Rate-limit cleanup selects a bucket's keys as a range (`key >= 'oauth:' AND key < 'oauth;'`), which
-- holds exactly the keys with the prefix in byte order, SQLite's. A database created with a linguistic
-- collation (the server's default locale, often) orders ':' and ';' otherwise, and ended buckets were
-- never deleted; the key is compared byte by byte on every database now.
ALTER TABLE "rate_limit_buckets" ALTER COLUMN "key" TYPE text COLLATE "C";
