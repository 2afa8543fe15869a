// Pure functions from validated upstream payloads to rows (no clock, no I/O).
export { toDecimalString, sumDecimals } from './decimal.js';
export { toTimestamp } from './timestamp.js';
export { normalizeTokenPrices } from './token-prices.js';
export { normalizePositions } from './positions.js';
export { normalizeNftHoldings } from './nft-holdings.js';
export { normalizeProtocols } from './protocols.js';
export { UnreadablePayloadError } from './unreadable-payload-error.js';
