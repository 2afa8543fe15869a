import { shortCoinType } from '../chain/coin-type.ts';

/** How alert texts spell their figures: short enough for a chat line, exact where it matters. */

/** `2026-11-21 12:15 UTC`; seconds only when the time has them. */
export function formatTime(time: Date): string {
  const iso = time.toISOString();
  const seconds = iso.slice(17, 19) === '00' ? '' : `:${iso.slice(17, 19)}`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${seconds} UTC`;
}

/** `0x7d20…b58e` for a long hex address; anything else as given. */
export function shortAddress(address: string): string {
  return /^0x[0-9a-f]{40,}$/.test(address) ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** A token's symbol when known, else its short coin type (`0x2::sui::SUI`; rules hold valid ones only). */
export function tokenLabel(coinType: string, symbol: string | null): string {
  return symbol || shortCoinType(coinType);
}

/** A position id short enough for a sentence: long hex runs shortened as addresses are. */
export function shortPositionId(positionId: string): string {
  return positionId.replace(/0x[0-9a-f]{40,}/g, shortAddress);
}
