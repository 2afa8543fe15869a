/** Coin type number `i` (0 on), in its normal form: 0x + 64 lower-case hex digits, a module, a name. */
export const coin = (i: number) => `0x${(0x1000 + i).toString(16).padStart(64, '0')}::coin${i}::COIN${i}`;
