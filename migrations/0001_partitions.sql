-- Monthly range partitions (UTC months) for the time-partitioned tables. Created ahead by the
-- maintenance job (ensurePartitions) and on demand by the writers for any month a batch touches
-- (backfill may write prices years in the past). Safe to call concurrently and repeatedly.
CREATE OR REPLACE FUNCTION chaintap_month_partition_name(parent text, month date) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT parent || '_p' || to_char(date_trunc('month', month), 'YYYY_MM')
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION chaintap_is_partition_of(parent text, child text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE i.inhparent = format('public.%I', parent)::regclass AND n.nspname = 'public' AND c.relname = child
  )
$$;
--> statement-breakpoint
-- Creates the partition of `parent` for the month of `month` unless it is there; true when created.
-- CREATE TABLE + ATTACH PARTITION rather than CREATE TABLE ... PARTITION OF: attaching takes only a
-- SHARE UPDATE EXCLUSIVE lock on the parent, so concurrent inserts and reads of other months go on.
-- The advisory lock (held to the end of the caller's transaction) makes concurrent creators of the
-- same partition wait for the first one instead of failing.
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
  RETURN true;
END
$$;
--> statement-breakpoint
CREATE SCHEMA IF NOT EXISTS chaintap_archive;
--> statement-breakpoint
COMMENT ON SCHEMA chaintap_archive IS 'token_price_points partitions detached by the maintenance job (PRICE_PARTITION_DETACH_DAYS); dump or drop them at will';
