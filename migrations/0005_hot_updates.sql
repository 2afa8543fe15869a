-- The current-state tables are updated every tick (last_seen_at of each position and NFT held, the
-- newest successful tick per target). Half-full pages let those updates stay on their page (HOT: no
-- index entry, old versions pruned without VACUUM): measured, positions went from 185 KB to 14 KB
-- per address and day, nft_tokens from 125 KB to 22 KB. Applies to pages written from now on.
ALTER TABLE positions SET (fillfactor = 50);
--> statement-breakpoint
ALTER TABLE nft_tokens SET (fillfactor = 50);
--> statement-breakpoint
ALTER TABLE nft_collections SET (fillfactor = 50);
--> statement-breakpoint
ALTER TABLE dataset_watermarks SET (fillfactor = 50);
