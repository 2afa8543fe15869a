import { readAddress } from '../chain/address.ts';
import { ADDRESS_FORMAT_LABELS } from '../chain/address-formats.ts';
import { formatDuration } from '../config/duration.ts';
import type { AddressWatch } from '../db/stores/reports.ts';

/** "SUI", "EVM", "Solana", "Bitcoin", "TON"; "unknown" for a value stored before formats were checked. */
export function addressFormatLabel(address: string): string {
  const format = readAddress(address)?.format;
  return format ? ADDRESS_FORMAT_LABELS[format] : 'unknown';
}

/**
 * What an address is refreshed for and on which chains: "positions on every chain; NFTs on ALL,
 * with PnL", "NFTs on SOL", "positions on ethereum (aave, uniswap); every 15m; max age 6h".
 */
export function describeAddressWatch(
  watch: Pick<AddressWatch, 'datasets' | 'chain' | 'nftChain'> &
    Partial<Pick<AddressWatch, 'protocols' | 'includePnl'>> & {
      maxAgeSeconds?: number | null;
      everySeconds?: number | null;
    },
): string {
  const parts: string[] = [];
  if (watch.datasets.includes('positions')) {
    const protocols = watch.protocols?.length ? ` (${watch.protocols.join(', ')})` : '';
    parts.push(`positions on ${watch.chain ?? 'every chain'}${protocols}`);
  }
  if (watch.datasets.includes('nfts')) parts.push(`NFTs on ${watch.nftChain}${watch.includePnl ? ', with PnL' : ''}`);
  // Refreshed by change rate within REFRESH_MAX_AGE unless it says otherwise (docs/quota.md).
  if (watch.everySeconds) parts.push(`every ${formatDuration(watch.everySeconds * 1000)}`);
  if (watch.maxAgeSeconds) parts.push(`max age ${formatDuration(watch.maxAgeSeconds * 1000)}`);
  return parts.join('; ');
}
