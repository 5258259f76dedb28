ALTER TABLE "identity_documents" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE INDEX "identity_documents_seq" ON "identity_documents" USING btree ("seq");
--> statement-breakpoint
CREATE INDEX "persons_seq" ON "persons" USING btree ("seq");