-- Raw bodies readable from SQL as received (issue 25): `body` holds every body as text again,
-- compressed by Postgres itself (TOAST: lz4 where the server has it, else pglz), instead of zlib
-- against per-target dictionaries (0007), which only `chaintap raw` could read. A body with a NUL
-- character, which text cannot hold, keeps its UTF-8 bytes in `body_bytes`. Rows written in the zlib
-- form (body_zlib) are turned into text by `chaintap migrate` right after this migration
-- (src/db/raw-body-conversion.ts), and again by a later run for rows that workers of the previous
-- release wrote during the rollout; body_zlib, dictionary_id and raw_body_dictionaries go in a later
-- release.
ALTER TABLE "raw_responses" DROP CONSTRAINT "raw_responses_body_check";--> statement-breakpoint
ALTER TABLE "raw_responses" ADD COLUMN "body_bytes" "bytea";--> statement-breakpoint
ALTER TABLE "raw_responses" ADD CONSTRAINT "raw_responses_body_check" CHECK (num_nonnulls("raw_responses"."body", "raw_responses"."body_bytes", "raw_responses"."body_zlib") = 1);--> statement-breakpoint
-- New values only: rows stored before keep how they were compressed.
DO $$
BEGIN
  ALTER TABLE raw_responses ALTER COLUMN body SET COMPRESSION lz4;
  ALTER TABLE raw_responses ALTER COLUMN body_bytes SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL is built without lz4: raw bodies are compressed with pglz';
END
$$;--> statement-breakpoint
-- One implementation of the JSON delta (issue 25): the writer computes it (src/db/json-delta.ts);
-- chaintap_jsonb_patch, which the views read with, stays.
DROP FUNCTION "chaintap_jsonb_delta"(jsonb, jsonb);
