-- Storing a price no longer writes a row per token: `tokens` becomes a view over token_catalog
-- (what rarely changes: id, symbol, decimals, first_seen_at, and the time of the latest answer
-- without a price) whose last_seen_at comes from the newest stored price, found through the primary
-- key of token_price_points (newest partition first). tokens.last_price_time is gone for the same
-- reason: latest_token_prices looks the newest price up the same way.
DROP VIEW latest_portfolio;
--> statement-breakpoint
DROP VIEW token_prices_daily_ohlc;
--> statement-breakpoint
DROP VIEW latest_token_prices;
--> statement-breakpoint
DROP VIEW token_prices;
--> statement-breakpoint
ALTER TABLE tokens RENAME TO token_catalog;
--> statement-breakpoint
ALTER TABLE token_catalog RENAME CONSTRAINT tokens_pkey TO token_catalog_pkey;
--> statement-breakpoint
ALTER TABLE token_catalog RENAME CONSTRAINT tokens_id_key TO token_catalog_id_key;
--> statement-breakpoint
ALTER SEQUENCE tokens_id_seq RENAME TO token_catalog_id_seq;
--> statement-breakpoint
ALTER TABLE token_catalog DROP COLUMN last_price_time;
--> statement-breakpoint
ALTER TABLE token_catalog RENAME COLUMN last_seen_at TO unpriced_seen_at;
--> statement-breakpoint
ALTER TABLE token_catalog ALTER COLUMN unpriced_seen_at DROP NOT NULL;
--> statement-breakpoint
-- The old column held the latest answer, priced or not: keep it only where no price is stored.
UPDATE token_catalog c SET unpriced_seen_at = NULL
WHERE EXISTS (SELECT 1 FROM token_price_points p WHERE p.token_id = c.id);
--> statement-breakpoint
CREATE VIEW tokens AS
SELECT c.coin_type,
       c.id,
       c.symbol,
       c.decimals,
       c.first_seen_at,
       greatest(c.unpriced_seen_at, newest.price_time) AS last_seen_at
FROM token_catalog c
LEFT JOIN LATERAL (
  SELECT p.price_time FROM token_price_points p WHERE p.token_id = c.id ORDER BY p.price_time DESC LIMIT 1
) newest ON true;
--> statement-breakpoint
CREATE VIEW token_prices AS
SELECT c.coin_type,
       p.price_time,
       p.price,
       p.price_24h_ago,
       s.name AS source,
       date_trunc('second', p.price_time) + p.fetch_delay_s * interval '1 second' AS fetched_at
FROM token_price_points p
JOIN token_catalog c ON c.id = p.token_id
LEFT JOIN price_sources s ON s.id = p.source_id;
--> statement-breakpoint
CREATE VIEW latest_token_prices AS
SELECT c.coin_type,
       c.symbol,
       p.price,
       p.price_24h_ago,
       p.price_time,
       s.name AS source,
       date_trunc('second', p.price_time) + p.fetch_delay_s * interval '1 second' AS fetched_at
FROM token_catalog c
JOIN LATERAL (
  SELECT * FROM token_price_points p WHERE p.token_id = c.id ORDER BY p.price_time DESC LIMIT 1
) p ON true
LEFT JOIN price_sources s ON s.id = p.source_id;
--> statement-breakpoint
CREATE VIEW token_prices_daily_ohlc AS
SELECT c.coin_type, d.day, d.open, d.high, d.low, d.close, d.samples
FROM token_catalog c
JOIN LATERAL (
  SELECT (p.price_time AT TIME ZONE 'UTC')::date AS day,
         (array_agg(p.price ORDER BY p.price_time))[1] AS open,
         max(p.price) AS high,
         min(p.price) AS low,
         (array_agg(p.price ORDER BY p.price_time DESC))[1] AS close,
         count(*)::integer AS samples
  FROM token_price_points p
  WHERE p.token_id = c.id
  GROUP BY 1
) d ON true;
--> statement-breakpoint
CREATE VIEW latest_portfolio AS
WITH owners AS (
  SELECT address AS owner FROM watched_addresses
  UNION SELECT owner FROM positions
  UNION SELECT owner FROM nft_tokens
),
native_prices AS (
  SELECT n.chain, l.price
  FROM (VALUES ('SUI', '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI')) AS n(chain, coin_type)
  JOIN latest_token_prices l ON l.coin_type = n.coin_type
)
SELECT o.owner,
       pos.value AS positions_value,
       nft.value AS nft_value,
       coalesce(pos.value, 0) + coalesce(nft.value, 0) AS total_value,
       pr.snapshot_at AS positions_snapshot_at,
       nr.snapshot_at AS nft_snapshot_at
FROM owners o
LEFT JOIN LATERAL (
  SELECT r.snapshot_at FROM position_refreshes r WHERE r.owner = o.owner ORDER BY r.snapshot_at DESC LIMIT 1
) pr ON true
LEFT JOIN LATERAL (
  SELECT coalesce(sum(coalesce(s.current_value, 0) + coalesce(s.current_yield_value, 0)), 0) AS value
  FROM position_snapshots s
  WHERE s.owner = o.owner AND s.snapshot_at = pr.snapshot_at
) pos ON pr.snapshot_at IS NOT NULL
LEFT JOIN LATERAL (
  SELECT r.snapshot_at FROM nft_refreshes r WHERE r.owner = o.owner ORDER BY r.snapshot_at DESC LIMIT 1
) nr ON true
LEFT JOIN LATERAL (
  SELECT coalesce(sum(h.token_count * coalesce(h.floor_price, h.market_price) * np.price), 0) AS value
  FROM nft_holding_snapshots h
  JOIN native_prices np ON np.chain = upper(h.chain)
  WHERE h.owner = o.owner AND h.snapshot_at = nr.snapshot_at
) nft ON nr.snapshot_at IS NOT NULL;
--> statement-breakpoint
-- The new view and the renamed table keep chaintap_reader's SELECT (also when another role migrates).
GRANT SELECT ON ALL TABLES IN SCHEMA public TO chaintap_reader;
