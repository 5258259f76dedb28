ALTER TABLE `production_reviews` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `production_reviews_seq` ON `production_reviews` (`seq`);