import { Draws, hashOf, unitOfPair } from './hash.ts';

/**
 * A smooth-ish price walk that exists at every instant, past or future, without state: the log price
 * is a sum of three waves (about a month, a day and two hours long) plus a little per-minute noise.
 * Prices are sampled on a 60 s grid, so every instant of one minute has the same price.
 */
export const PRICE_GRID_MS = 60_000;

/** The ranges each wave's amplitude (of the log price) and period are drawn from. */
const WAVES: { amplitude: [number, number]; periodMinutes: [number, number] }[] = [
  { amplitude: [0.1, 0.4], periodMinutes: [20_000, 60_000] },
  { amplitude: [0.02, 0.08], periodMinutes: [900, 2_000] },
  { amplitude: [0.005, 0.02], periodMinutes: [60, 180] },
];

export function priceModel(key: string, seed: string, options: { base?: number; stable?: boolean } = {}) {
  const draws = new Draws(seed, key, 'price-model');
  const base = options.base ?? 10 ** draws.between(-4, 3);
  const scale = options.stable ? 0.01 : 1;
  return {
    keyHash: hashOf(seed, key, 'noise'),
    logBase: Math.log(base),
    waves: WAVES.map(({ amplitude, periodMinutes }) => ({
      amplitude: scale * draws.between(...amplitude),
      periodMinutes: draws.between(...periodMinutes),
      phase: draws.between(0, 2 * Math.PI),
    })),
    noise: scale * 0.003,
  };
}

export type PriceModel = ReturnType<typeof priceModel>;

/** The bounds no price of a model ever leaves: every wave and the noise at their extremes. */
export function modelPriceRange(model: PriceModel): { low: number; high: number } {
  const reach = model.noise + model.waves.reduce((sum, wave) => sum + wave.amplitude, 0);
  return { low: Math.exp(model.logBase - reach), high: Math.exp(model.logBase + reach) };
}

/** The start of the grid minute a time falls into. */
export function priceGridTime(timeMs: number): number {
  return Math.floor(timeMs / PRICE_GRID_MS) * PRICE_GRID_MS;
}

/** The (unrounded) price of a model at a time. */
export function modelPriceAt(model: PriceModel, timeMs: number): number {
  const minute = Math.floor(timeMs / PRICE_GRID_MS);
  let logPrice = model.logBase + model.noise * (2 * unitOfPair(model.keyHash, minute) - 1);
  for (const wave of model.waves) {
    logPrice += wave.amplitude * Math.sin((2 * Math.PI * minute) / wave.periodMinutes + wave.phase);
  }
  return Math.exp(logPrice);
}
