-- Custom SQL migration file, put your code below! ---- Reviews written before 0016 take their insertion order from the rowid, which ordered them until then.
UPDATE `production_reviews` SET `seq` = rowid;
