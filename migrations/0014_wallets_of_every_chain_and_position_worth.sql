ALTER TABLE "watched_addresses" ADD COLUMN "datasets" text[] DEFAULT '{positions,nfts}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "position_snapshot_points" ADD COLUMN "asset_value" numeric;--> statement-breakpoint
ALTER TABLE "position_snapshot_points" ADD COLUMN "debt_value" numeric;--> statement-breakpoint
ALTER TABLE "position_snapshot_points" ADD COLUMN "net_value" numeric;--> statement-breakpoint
ALTER TABLE "position_snapshot_points" ADD COLUMN "pnl" numeric;--> statement-breakpoint
ALTER TABLE "position_snapshot_points" ADD COLUMN "health_factor" numeric;--> statement-breakpoint
ALTER TABLE "watched_addresses" ADD CONSTRAINT "watched_addresses_datasets_check" CHECK (cardinality("watched_addresses"."datasets") > 0 AND "watched_addresses"."datasets" <@ '{positions,nfts}'::text[]);--> statement-breakpoint
-- What every stored position snapshot is worth, by the rule new snapshots get from
-- src/normalize/position-worth.ts (docs/schema.md, "What a wallet is worth"), computed once here for
-- the history stored before:
-- - a type naming "borrow": debt = current + current yield (+ positions nested in them), asset = its
--   input's values + the current and current yield of the positions nested in its input, pnl null;
-- - any other type: asset = current + current yield (+ positions nested in them), debt 0,
--   pnl = current + current yield + yield collected - input (as position_pnl computed it);
-- - net = asset - debt; a figure with an unknown term is null;
-- - health_factor: current.healthy, else healthFactor, when it is a number, a numeric string or
--   {"value": ...} (in the snapshot's extra, stored as its difference from positions.snapshot_extra).
CREATE FUNCTION pg_temp.chaintap_decimal_of(value jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN jsonb_typeof(value) = 'number' THEN (value #>> '{}')::numeric
    WHEN jsonb_typeof(value) = 'string' AND length(value #>> '{}') < 1000
      AND (value #>> '{}') ~ '^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?\s*$' THEN trim(value #>> '{}')::numeric
    WHEN jsonb_typeof(value) = 'object' AND (SELECT array_agg(k) FROM jsonb_object_keys(value) AS k) = '{value}'
      THEN pg_temp.chaintap_decimal_of(value -> 'value')
  END
$$;
--> statement-breakpoint
WITH nested AS (
  SELECT parent.position_key, cs.snapshot_at,
         regexp_replace(substr(c.position_id, length(c.parent_position_id) + 2), '/[0-9]+$', '') AS list,
         cs.current_value + cs.current_yield_value AS held
  FROM positions c
  JOIN positions parent ON parent.owner = c.owner AND parent.position_id = c.parent_position_id
  JOIN position_snapshot_points cs ON cs.position_key = c.position_key
  WHERE c.parent_position_id IS NOT NULL
),
held AS (
  SELECT position_key, snapshot_at,
         CASE WHEN bool_and(held IS NOT NULL) FILTER (WHERE list = 'input') IS FALSE THEN NULL
              ELSE coalesce(sum(held) FILTER (WHERE list = 'input'), 0) END AS in_input,
         CASE WHEN bool_and(held IS NOT NULL) FILTER (WHERE list LIKE 'current.%') IS FALSE THEN NULL
              ELSE coalesce(sum(held) FILTER (WHERE list LIKE 'current.%'), 0) END AS in_current
  FROM nested
  GROUP BY position_key, snapshot_at
),
worth AS (
  SELECT s.position_key, s.snapshot_at, p.type ~* 'borrow' AS borrow,
         s.input_value + CASE WHEN h.position_key IS NULL THEN 0 ELSE h.in_input END AS collateral,
         s.current_value + s.current_yield_value + CASE WHEN h.position_key IS NULL THEN 0 ELSE h.in_current END AS held_now,
         s.current_value + s.current_yield_value + s.yield_collected_value - s.input_value AS gained,
         chaintap_jsonb_patch(p.snapshot_extra, s.extra) AS extra
  FROM position_snapshot_points s
  JOIN positions p ON p.position_key = s.position_key
  LEFT JOIN held h ON h.position_key = s.position_key AND h.snapshot_at = s.snapshot_at
),
figures AS (
  SELECT position_key, snapshot_at,
         CASE WHEN borrow THEN collateral ELSE held_now END AS asset_value,
         CASE WHEN borrow THEN held_now ELSE 0 END AS debt_value,
         CASE WHEN borrow THEN NULL ELSE gained END AS pnl,
         coalesce(pg_temp.chaintap_decimal_of(extra -> 'current' -> 'healthy'),
                  pg_temp.chaintap_decimal_of(extra -> 'healthFactor')) AS health_factor
  FROM worth
)
UPDATE position_snapshot_points s
SET asset_value = f.asset_value,
    debt_value = f.debt_value,
    net_value = f.asset_value - f.debt_value,
    pnl = f.pnl,
    health_factor = f.health_factor
FROM figures f
WHERE s.position_key = f.position_key AND s.snapshot_at = f.snapshot_at;
--> statement-breakpoint
DROP FUNCTION pg_temp.chaintap_decimal_of(jsonb);
--> statement-breakpoint
-- Columns are only appended (CREATE OR REPLACE keeps the existing ones, their readers and the grants).
CREATE OR REPLACE VIEW position_snapshots AS
SELECT p.owner,
       p.position_id,
       s.snapshot_at,
       s.fee,
       s.input_value,
       s.yield_collected_value,
       s.current_value,
       s.current_yield_value,
       chaintap_jsonb_patch(p.snapshot_extra, s.extra) AS extra,
       s.asset_value,
       s.debt_value,
       s.net_value,
       s.pnl,
       s.health_factor
FROM position_snapshot_points s
JOIN positions p ON p.position_key = s.position_key;
--> statement-breakpoint
-- pnl now as stored (null for a Borrow: docs/schema.md, "What a wallet is worth").
CREATE OR REPLACE VIEW position_pnl AS
SELECT p.owner,
       p.position_id,
       p.protocol_id,
       p.type,
       p.chain,
       s.snapshot_at,
       s.input_value,
       s.yield_collected_value,
       s.current_value,
       s.current_yield_value,
       s.pnl,
       p.upstream_position_id,
       p.parent_position_id,
       s.asset_value,
       s.debt_value,
       s.net_value,
       s.health_factor
FROM position_snapshot_points s
JOIN positions p ON p.position_key = s.position_key;
--> statement-breakpoint
-- One row per positions refresh with what the wallet's positions were worth then: the top-level
-- positions summed (a nested position is counted inside its parent). A position whose net value is
-- unknown is left out of the sums and counted in unvalued_positions.
CREATE VIEW position_refresh_values AS
SELECT r.owner,
       r.snapshot_at,
       r.complete,
       r.position_count,
       v.asset_value,
       v.debt_value,
       v.net_value,
       v.unvalued_positions
FROM position_refreshes r
CROSS JOIN LATERAL (
  SELECT coalesce(sum(s.asset_value) FILTER (WHERE s.net_value IS NOT NULL), 0) AS asset_value,
         coalesce(sum(s.debt_value) FILTER (WHERE s.net_value IS NOT NULL), 0) AS debt_value,
         coalesce(sum(s.net_value), 0) AS net_value,
         (count(*) - count(s.net_value))::integer AS unvalued_positions
  FROM positions p
  JOIN position_snapshot_points s ON s.position_key = p.position_key AND s.snapshot_at = r.snapshot_at
  WHERE p.owner = r.owner AND p.parent_position_id IS NULL
) v;
--> statement-breakpoint
-- One row per NFT refresh with the USD value of its holdings (as latest_portfolio summed them since
-- 0008): 0 when it held nothing, null when none of its holdings has a known value.
CREATE VIEW nft_refresh_values AS
SELECT r.owner,
       r.snapshot_at,
       r.scope_chain,
       r.collection_count,
       r.token_count,
       v.value_usd,
       v.unvalued_collections
FROM nft_refreshes r
CROSS JOIN LATERAL (
  SELECT CASE WHEN count(*) = 0 THEN 0 ELSE sum(n.value_usd) END AS value_usd,
         (count(*) - count(n.value_usd))::integer AS unvalued_collections
  FROM nft_pnl n
  WHERE n.owner = r.owner AND n.snapshot_at = r.snapshot_at
) v;
--> statement-breakpoint
-- positions_value is the net worth of the latest positions refresh (debt counted as debt); its asset
-- and debt sides and its unvalued positions are appended.
CREATE OR REPLACE VIEW latest_portfolio AS
WITH owners AS (
  SELECT address AS owner FROM watched_addresses
  UNION SELECT owner FROM positions
  UNION SELECT owner FROM nft_tokens
)
SELECT o.owner,
       pos.net_value AS positions_value,
       nft.value_usd AS nft_value,
       coalesce(pos.net_value, 0) + coalesce(nft.value_usd, 0) AS total_value,
       pos.snapshot_at AS positions_snapshot_at,
       nft.snapshot_at AS nft_snapshot_at,
       nft.unvalued_collections AS nft_unvalued_collections,
       pos.asset_value AS positions_asset_value,
       pos.debt_value AS positions_debt_value,
       pos.unvalued_positions AS positions_unvalued
FROM owners o
LEFT JOIN LATERAL (
  SELECT * FROM position_refresh_values r WHERE r.owner = o.owner ORDER BY r.snapshot_at DESC LIMIT 1
) pos ON true
LEFT JOIN LATERAL (
  SELECT * FROM nft_refresh_values r WHERE r.owner = o.owner ORDER BY r.snapshot_at DESC LIMIT 1
) nft ON true;
--> statement-breakpoint
GRANT SELECT ON position_refresh_values, nft_refresh_values TO chaintap_reader;
