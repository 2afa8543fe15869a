-- Prices of every chain, marked with the answer that carried them (issue 30 item 4, issue 31 item 2).
-- token_catalog knows a token's chain: the same 0x…40-hex address may be a token on ethereum and on
-- arbitrum, so the key is (coin_type, chain); every token stored before is a SUI coin type.
ALTER TABLE "token_catalog" ADD COLUMN "chain" text NOT NULL DEFAULT 'sui';
--> statement-breakpoint
ALTER TABLE "token_catalog" ALTER COLUMN "chain" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "token_catalog" DROP CONSTRAINT "token_catalog_pkey";
--> statement-breakpoint
ALTER TABLE "token_catalog" ADD CONSTRAINT "token_catalog_pkey" PRIMARY KEY("coin_type","chain");
--> statement-breakpoint
-- origin: 1 a price request, 2 a positions answer, 3 an NFT answer. Every price stored before came
-- from a price request. A constant default is not written into the rows (PostgreSQL keeps it in the
-- catalog), so this is instant on a table of any size; the smallint fits in the tuple's padding.
ALTER TABLE "token_price_points" ADD COLUMN "origin" smallint NOT NULL DEFAULT 1;
--> statement-breakpoint
ALTER TABLE "token_price_points" ALTER COLUMN "origin" DROP DEFAULT;
--> statement-breakpoint
-- The views gain chain (and origin) as their last columns, so that readers selecting the others by
-- name, and the views built on them, are unchanged.
CREATE OR REPLACE VIEW tokens AS
SELECT c.coin_type,
       c.id,
       c.symbol,
       c.decimals,
       c.first_seen_at,
       greatest(c.unpriced_seen_at, newest.price_time) AS last_seen_at,
       c.chain
FROM token_catalog c
LEFT JOIN LATERAL (
  SELECT p.price_time FROM token_price_points p WHERE p.token_id = c.id ORDER BY p.price_time DESC LIMIT 1
) newest ON true;
--> statement-breakpoint
CREATE OR REPLACE VIEW token_prices AS
SELECT c.coin_type,
       p.price_time,
       p.price,
       p.price_24h_ago,
       s.name AS source,
       date_trunc('second', p.price_time) + p.fetch_delay_s * interval '1 second' AS fetched_at,
       c.chain,
       CASE p.origin WHEN 1 THEN 'prices' WHEN 2 THEN 'positions' WHEN 3 THEN 'nfts' END AS origin
FROM token_price_points p
JOIN token_catalog c ON c.id = p.token_id
LEFT JOIN price_sources s ON s.id = p.source_id;
--> statement-breakpoint
CREATE OR REPLACE VIEW latest_token_prices AS
SELECT c.coin_type,
       c.symbol,
       p.price,
       p.price_24h_ago,
       p.price_time,
       s.name AS source,
       date_trunc('second', p.price_time) + p.fetch_delay_s * interval '1 second' AS fetched_at,
       c.chain,
       CASE p.origin WHEN 1 THEN 'prices' WHEN 2 THEN 'positions' WHEN 3 THEN 'nfts' END AS origin
FROM token_catalog c
JOIN LATERAL (
  SELECT p.price_time, p.fetch_delay_s, p.source_id, p.price, p.price_24h_ago, p.origin
  FROM token_price_points p WHERE p.token_id = c.id ORDER BY p.price_time DESC LIMIT 1
) p ON true
LEFT JOIN price_sources s ON s.id = p.source_id;
--> statement-breakpoint
CREATE OR REPLACE VIEW token_prices_daily_ohlc AS
SELECT c.coin_type, d.day, d.open, d.high, d.low, d.close, d.samples, c.chain
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
-- The SUI price a SUI holding without a market price falls back to is SUI's on the sui chain.
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
LEFT JOIN LATERAL (
  SELECT p.price
  FROM token_price_points p
  WHERE h.market_price IS NULL
    AND upper(coalesce(h.chain, c.chain)) = 'SUI'
    AND p.token_id = (
      SELECT t.id FROM token_catalog t
      WHERE t.coin_type = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI'
        AND t.chain = 'sui'
    )
    AND p.price_time <= h.snapshot_at
  ORDER BY p.price_time DESC
  LIMIT 1
) sui ON true;
