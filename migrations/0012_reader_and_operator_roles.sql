-- Two read roles instead of one (issue 16). chaintap_reader, for BI, keeps the data tables and the
-- reporting views and loses the operational tables: raw upstream bodies and their dictionaries,
-- quarantined bodies, run records (they carry upstream error texts), schema drifts, and the
-- watchlist with its per-address options (latest_portfolio still lists the watched addresses, as
-- owners). chaintap_operator, new, reads everything in `public`. Both NOLOGIN: grant them to login
-- roles. Roles are cluster-wide, so another database of the cluster may create it, even concurrently.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'chaintap_operator') THEN
    BEGIN
      CREATE ROLE chaintap_operator NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;
    END;
  END IF;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO chaintap_operator;
--> statement-breakpoint
GRANT SELECT ON ALL TABLES IN SCHEMA public TO chaintap_operator;
--> statement-breakpoint
REVOKE ALL ON raw_responses, raw_body_dictionaries, quarantined_payloads, ingestion_runs, schema_drifts,
  watched_tokens, watched_addresses FROM chaintap_reader;
--> statement-breakpoint
-- Tables created later (by the role that runs migrations and writes) are the operator's only. A
-- migration that adds a table for BI grants it by name: `GRANT SELECT ON <table> TO chaintap_reader`
-- (test/db/roles.test.ts fails until every table is either granted or listed as operational), so a
-- new operational table is never readable by BI by mistake.
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT ON TABLES FROM chaintap_reader;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO chaintap_operator;
--> statement-breakpoint
-- Postgres before 15 lets every role create objects in `public`. (As the schema's owner or a
-- superuser; another role only gets a warning, and its Postgres 15+ has no such grant anyway.)
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
--> statement-breakpoint
-- As in 0001, and a new partition is readable directly by chaintap_reader when its parent is (the
-- default privileges above no longer give it every new table).
CREATE OR REPLACE FUNCTION chaintap_ensure_month_partition(parent text, month date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  first_day date := date_trunc('month', month)::date;
  child text := chaintap_month_partition_name(parent, first_day);
  lower_bound timestamptz := first_day::timestamp AT TIME ZONE 'UTC';
  upper_bound timestamptz := (first_day + interval '1 month')::timestamp AT TIME ZONE 'UTC';
BEGIN
  IF chaintap_is_partition_of(parent, child) THEN
    RETURN false;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('chaintap_partition'), hashtext(child));
  IF chaintap_is_partition_of(parent, child) THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE public.%I (LIKE public.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', child, parent);
  EXECUTE format('ALTER TABLE public.%I ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)',
                 parent, child, lower_bound, upper_bound);
  IF has_table_privilege('chaintap_reader', format('public.%I', parent), 'SELECT') THEN
    EXECUTE format('GRANT SELECT ON public.%I TO chaintap_reader', child);
  END IF;
  RETURN true;
END
$$;
