// Every table and view of the data contract (docs/schema.md), one file per table group.
export * from './watchlist.ts';
export * from './prices.ts';
export * from './positions.ts';
export * from './nfts.ts';
export * from './operations.ts';
export * from './views.ts';
export * from './alerts.ts';
