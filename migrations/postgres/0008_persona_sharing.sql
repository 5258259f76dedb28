CREATE TABLE "persona_document_sharing" (
	"session_id_hash" text NOT NULL,
	"document_id" text NOT NULL,
	"share_enabled" integer NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "persona_document_sharing_session_id_hash_document_id_pk" PRIMARY KEY("session_id_hash","document_id")
);

--> statement-breakpoint
ALTER TABLE "persona_document_sharing" ADD CONSTRAINT "persona_document_sharing_document_id_identity_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."identity_documents"("id") ON DELETE cascade ON UPDATE no action;