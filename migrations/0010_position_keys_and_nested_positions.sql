-- Positions sharing a positionId in one answer each get a row of their own, and a position nested in
-- another's amount list (a Borrow's collateral) is stored as a child position: position_id becomes
-- the row key, the upstream's own id moves to upstream_position_id (equal to position_id for every
-- row stored before). Added nullable, filled, then made NOT NULL (the generated ADD ... NOT NULL
-- fails on a table with rows).
ALTER TABLE "positions" ADD COLUMN "upstream_position_id" text;--> statement-breakpoint
UPDATE "positions" SET "upstream_position_id" = "position_id";--> statement-breakpoint
ALTER TABLE "positions" ALTER COLUMN "upstream_position_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "positions" ADD COLUMN "parent_position_id" text;--> statement-breakpoint
-- Columns are only appended (CREATE OR REPLACE keeps the existing ones, their readers and the grants).
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
       s.current_value + s.current_yield_value + s.yield_collected_value - s.input_value AS pnl,
       p.upstream_position_id,
       p.parent_position_id
FROM position_snapshot_points s
JOIN positions p ON p.position_key = s.position_key;
--> statement-breakpoint
-- As in 0008, but positions_value sums only top-level positions: a nested position (a Borrow's
-- collateral) is part of the answer's top-level position, so that the sum equals the answer's.
CREATE OR REPLACE VIEW latest_portfolio AS
WITH owners AS (
  SELECT address AS owner FROM watched_addresses
  UNION SELECT owner FROM positions
  UNION SELECT owner FROM nft_tokens
)
SELECT o.owner,
       pos.value AS positions_value,
       nft.value AS nft_value,
       coalesce(pos.value, 0) + coalesce(nft.value, 0) AS total_value,
       pr.snapshot_at AS positions_snapshot_at,
       nr.snapshot_at AS nft_snapshot_at,
       nft.unvalued AS nft_unvalued_collections
FROM owners o
LEFT JOIN LATERAL (
  SELECT r.snapshot_at FROM position_refreshes r WHERE r.owner = o.owner ORDER BY r.snapshot_at DESC LIMIT 1
) pr ON true
LEFT JOIN LATERAL (
  SELECT coalesce(sum(coalesce(s.current_value, 0) + coalesce(s.current_yield_value, 0)), 0) AS value
  FROM positions p
  JOIN position_snapshot_points s ON s.position_key = p.position_key AND s.snapshot_at = pr.snapshot_at
  WHERE p.owner = o.owner AND p.parent_position_id IS NULL
) pos ON pr.snapshot_at IS NOT NULL
LEFT JOIN LATERAL (
  SELECT r.snapshot_at FROM nft_refreshes r WHERE r.owner = o.owner ORDER BY r.snapshot_at DESC LIMIT 1
) nr ON true
LEFT JOIN LATERAL (
  SELECT CASE WHEN count(*) = 0 THEN 0 ELSE sum(n.value_usd) END AS value,
         (count(*) - count(n.value_usd))::integer AS unvalued
  FROM nft_pnl n
  WHERE n.owner = o.owner AND n.snapshot_at = nr.snapshot_at
) nft ON nr.snapshot_at IS NOT NULL;
