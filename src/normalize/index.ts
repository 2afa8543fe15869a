// Pure functions from validated upstream payloads to rows (no clock, no I/O).
export { normalizeCoinType, normalizeSuiAddress, shortCoinType } from './coin-type.js';
export { normalizeAddress, parseChainFilter, parseNftChain, NFT_CHAINS, type NftChain } from './address.js';
export { toDecimalString, sumDecimals } from './decimal.js';
export { toTimestamp } from './timestamp.js';
export { normalizeTokenPrices } from './token-prices.js';
export { normalizePositions } from './positions.js';
export { normalizeNftHoldings } from './nft-holdings.js';
export { normalizeProtocols } from './protocols.js';
export { UnreadablePayloadError } from './unreadable-payload-error.js';
export type * from './rows.js';
