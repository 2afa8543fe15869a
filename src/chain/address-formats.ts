/**
 * The address formats' and NFT chains' names, apart from the checks of address.ts, so that the
 * command declarations (`chaintap --help`) name them without loading the checksum libraries.
 */

/** How a format is named in lists and pages. */
export const ADDRESS_FORMAT_LABELS = { sui: 'SUI', evm: 'EVM', solana: 'Solana', bitcoin: 'Bitcoin', ton: 'TON' };
export type AddressFormat = keyof typeof ADDRESS_FORMAT_LABELS;

/** Chains the NFT-holdings operation accepts (upstream-api.md 4.3). */
export const EVM_CHAINS = [
  'ETH',
  'FANTOM',
  'RON',
  'BNB',
  'OP',
  'AVAX',
  'MATIC',
  'ARB',
  'BASE',
  'SCROLL',
  'ZKSYNC',
] as const;
export const NFT_CHAINS = ['BTC', 'SOL', 'SUI', 'TON', ...EVM_CHAINS, 'ALL'] as const;
export type NftChain = (typeof NFT_CHAINS)[number];
