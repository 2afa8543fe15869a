import { readAddress } from '../chain/address.ts';
import { ADDRESS_FORMAT_LABELS } from '../chain/address-formats.ts';
import type { AddressWatch } from '../db/stores/reports.ts';

/** "SUI", "EVM", "Solana", "Bitcoin", "TON"; "unknown" for a value stored before formats were checked. */
export function addressFormatLabel(address: string): string {
  const format = readAddress(address)?.format;
  return format ? ADDRESS_FORMAT_LABELS[format] : 'unknown';
}

/**
 * What an address is refreshed for and on which chains: "positions on every chain; NFTs on ALL,
 * with PnL", "NFTs on SOL", "positions on ethereum (aave, uniswap)".
 */
export function describeAddressWatch(
  watch: Pick<AddressWatch, 'datasets' | 'chain' | 'nftChain'> &
    Partial<Pick<AddressWatch, 'protocols' | 'includePnl'>>,
): string {
  const parts: string[] = [];
  if (watch.datasets.includes('positions')) {
    const protocols = watch.protocols?.length ? ` (${watch.protocols.join(', ')})` : '';
    parts.push(`positions on ${watch.chain ?? 'every chain'}${protocols}`);
  }
  if (watch.datasets.includes('nfts')) parts.push(`NFTs on ${watch.nftChain}${watch.includePnl ? ', with PnL' : ''}`);
  return parts.join('; ');
}
