-- Reporting views (docs/schema.md). Column names and meanings are part of the data contract.

-- The data contract's token_prices: one row per stored price, over the compact token_price_points.
CREATE OR REPLACE VIEW token_prices AS
SELECT t.coin_type,
       p.price_time,
       p.price,
       p.price_24h_ago,
       s.name AS source,
       date_trunc('second', p.price_time) + p.fetch_delay_s * interval '1 second' AS fetched_at
FROM token_price_points p
JOIN tokens t ON t.id = p.token_id
LEFT JOIN price_sources s ON s.id = p.source_id;
--> statement-breakpoint
-- Newest stored price per token: a key lookup through tokens.last_price_time.
CREATE OR REPLACE VIEW latest_token_prices AS
SELECT t.coin_type,
       t.symbol,
       p.price,
       p.price_24h_ago,
       p.price_time,
       s.name AS source,
       date_trunc('second', p.price_time) + p.fetch_delay_s * interval '1 second' AS fetched_at
FROM tokens t
JOIN token_price_points p ON p.token_id = t.id AND p.price_time = t.last_price_time
LEFT JOIN price_sources s ON s.id = p.source_id;
--> statement-breakpoint
-- Open, high, low, close per token and UTC day. Filter on coin_type: the lateral join then reads
-- only that token's prices through the primary key.
CREATE OR REPLACE VIEW token_prices_daily_ohlc AS
SELECT t.coin_type, d.day, d.open, d.high, d.low, d.close, d.samples
FROM tokens t
JOIN LATERAL (
  SELECT (p.price_time AT TIME ZONE 'UTC')::date AS day,
         (array_agg(p.price ORDER BY p.price_time))[1] AS open,
         max(p.price) AS high,
         min(p.price) AS low,
         (array_agg(p.price ORDER BY p.price_time DESC))[1] AS close,
         count(*)::integer AS samples
  FROM token_price_points p
  WHERE p.token_id = t.id
  GROUP BY 1
) d ON true;
--> statement-breakpoint
-- Value of each address at its latest successful refreshes. positions_value: current tokens plus
-- unclaimed yield of every position of the latest positions refresh. nft_value: token_count x floor
-- price (market price when no floor) of the latest NFT refresh, in USD through the latest price of
-- the chain's native token; holdings of chains whose native token has no stored price are left out
-- (only SUI's is a token the price operation serves). Null when the address was never refreshed.
CREATE OR REPLACE VIEW latest_portfolio AS
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
-- PnL of every position at every snapshot: current tokens + unclaimed yield + yield collected − input.
-- Null when one of the totals is unknown (an entry without a value, or no `current`).
CREATE OR REPLACE VIEW position_pnl AS
SELECT s.owner,
       s.position_id,
       p.protocol_id,
       p.type,
       p.chain,
       s.snapshot_at,
       s.input_value,
       s.yield_collected_value,
       s.current_value,
       s.current_yield_value,
       s.current_value + s.current_yield_value + s.yield_collected_value - s.input_value AS pnl
FROM position_snapshots s
JOIN positions p ON p.owner = s.owner AND p.position_id = s.position_id;
--> statement-breakpoint
-- NFT holdings and PnL per collection per snapshot, in the chain's native units as answered.
-- realized/unrealized PnL are null when PnL was not requested.
CREATE OR REPLACE VIEW nft_pnl AS
SELECT h.owner,
       h.collection_id,
       c.name AS collection_name,
       coalesce(h.chain, c.chain) AS chain,
       h.snapshot_at,
       h.token_count,
       h.floor_price,
       h.market_price,
       h.realized_pnl,
       h.unrealized_pnl
FROM nft_holding_snapshots h
JOIN nft_collections c ON c.collection_id = h.collection_id;
--> statement-breakpoint
-- Newest successful tick per dataset and target (kept by commitJob in dataset_watermarks).
CREATE OR REPLACE VIEW dataset_freshness AS
SELECT dataset, target, last_success_tick, last_success_at
FROM dataset_watermarks;
