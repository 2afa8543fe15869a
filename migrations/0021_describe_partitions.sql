-- Descriptions (COMMENT ON) for the monthly partitions, which BI tools list beside their parents:
-- each partition carries its parent's column descriptions and a description naming its parent.
-- The tables, views, columns and types themselves are described by `chaintap migrate` after the
-- migrations, from docs/schema.md (migrations/schema-comments.json, src/db/schema-comments.ts),
-- which also calls this function for every partition so that a changed description reaches them.
-- Comments only what differs; returns how many descriptions it changed.
CREATE OR REPLACE FUNCTION chaintap_describe_partition(child regclass) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  parent regclass := (SELECT inhparent FROM pg_inherits WHERE inhrelid = child);
  wanted text;
  changed integer := 0;
  col record;
BEGIN
  IF parent IS NULL THEN
    RETURN 0;
  END IF;
  wanted := format('A monthly partition of %s (its name gives the month, UTC): read %s. %s',
                   parent, parent, coalesce(obj_description(parent, 'pg_class'), ''));
  IF obj_description(child, 'pg_class') IS DISTINCT FROM wanted THEN
    EXECUTE format('COMMENT ON TABLE %s IS %L', child, wanted);
    changed := changed + 1;
  END IF;
  FOR col IN
    SELECT p.attname, col_description(parent, p.attnum) AS wanted, col_description(child, c.attnum) AS held
    FROM pg_attribute p
    JOIN pg_attribute c ON c.attrelid = child AND c.attname = p.attname AND NOT c.attisdropped
    WHERE p.attrelid = parent AND p.attnum > 0 AND NOT p.attisdropped
  LOOP
    IF col.wanted IS DISTINCT FROM col.held THEN
      EXECUTE format('COMMENT ON COLUMN %s.%I IS %L', child, col.attname, col.wanted);
      changed := changed + 1;
    END IF;
  END LOOP;
  RETURN changed;
END
$$;
--> statement-breakpoint
-- As in 0012, and the new partition is described as its parent is.
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
  PERFORM chaintap_describe_partition(format('public.%I', child)::regclass);
  RETURN true;
END
$$;
