CREATE TABLE "schema_drifts" (
	"dataset" text NOT NULL,
	"field" text NOT NULL,
	"shape" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "schema_drifts_pkey" PRIMARY KEY("dataset","field","shape")
);
--> statement-breakpoint
ALTER TABLE "quarantined_payloads" DROP CONSTRAINT "quarantined_payloads_raw_response_id_key";--> statement-breakpoint
ALTER TABLE "ingestion_runs" ADD COLUMN "elements_stored" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ingestion_runs" ADD COLUMN "elements_quarantined" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "quarantined_payloads" ADD COLUMN "element_index" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "quarantined_payloads_raw_response_id_key" ON "quarantined_payloads" USING btree ("raw_response_id") WHERE "quarantined_payloads"."element_index" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "quarantined_payloads_raw_response_id_element_index_key" ON "quarantined_payloads" USING btree ("raw_response_id","element_index") WHERE "quarantined_payloads"."element_index" is not null;
