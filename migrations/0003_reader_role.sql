-- The read-only role for BI tools: SELECT on every table and view, now and later (default
-- privileges cover tables, views and partitions created later by the role that runs migrations
-- and writes). NOLOGIN: grant it to login roles (`GRANT chaintap_reader TO bi_user`). Roles are
-- cluster-wide, so another database of the cluster may have created it, even concurrently.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'chaintap_reader') THEN
    BEGIN
      CREATE ROLE chaintap_reader NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;
    END;
  END IF;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO chaintap_reader;
--> statement-breakpoint
GRANT SELECT ON ALL TABLES IN SCHEMA public TO chaintap_reader;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO chaintap_reader;
