-- NFT holdings valued in USD on every chain. The real service answers floorPrice in the chain's native
-- token and marketPrice as the USD price of that native token, so a holding is worth
-- token_count × floor_price × market_price. Only where market_price is missing do SUI holdings fall
-- back to the SUI price in token_prices; any other holding without both is unknown (null), never 0.
-- Columns are only appended (CREATE OR REPLACE keeps the existing ones, their readers and the grants).
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
       h.unrealized_pnl,
       c.native_token_symbol,
       h.floor_price AS floor_price_native,
       h.market_price AS market_price_usd,
       coalesce(h.market_price, sui.price) AS native_price_usd,
       CASE WHEN h.market_price IS NOT NULL THEN 'market_price'
            WHEN sui.price IS NOT NULL THEN 'token_prices' END AS native_price_source,
       h.token_count * h.floor_price * coalesce(h.market_price, sui.price) AS value_usd
FROM nft_holding_snapshots h
JOIN nft_collections c ON c.collection_id = h.collection_id
-- The SUI price in force at the snapshot, looked up only for SUI holdings without a market price
-- (one row read backwards along token_price_points' key).
LEFT JOIN LATERAL (
  SELECT p.price
  FROM token_price_points p
  WHERE h.market_price IS NULL
    AND upper(coalesce(h.chain, c.chain)) = 'SUI'
    AND p.token_id = (
      SELECT t.id FROM token_catalog t
      WHERE t.coin_type = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI'
    )
    AND p.price_time <= h.snapshot_at
  ORDER BY p.price_time DESC
  LIMIT 1
) sui ON true;
--> statement-breakpoint
-- nft_value sums value_usd of the latest NFT refresh: 0 when it held nothing, null when nothing it
-- held has a known value. nft_unvalued_collections counts the holdings left out of that sum.
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
  WHERE p.owner = o.owner
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
