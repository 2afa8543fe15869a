// Every table and view of the data contract (docs/schema.md), one file per table group.
export * from './watchlist.js';
export * from './prices.js';
export * from './positions.js';
export * from './nfts.js';
export * from './operations.js';
export * from './views.js';
export * from './alerts.js';
