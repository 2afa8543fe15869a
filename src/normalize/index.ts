// Pure functions from validated upstream payloads to rows (no clock, no I/O).
export { toDecimalString, sumDecimals } from './decimal.ts';
export { toTimestamp } from './timestamp.ts';
export { normalizeTokenPrices } from './token-prices.ts';
export { normalizePositions } from './positions.ts';
export { normalizeNftHoldings } from './nft-holdings.ts';
export { normalizeProtocols } from './protocols.ts';
export { UnreadablePayloadError } from './unreadable-payload-error.ts';
