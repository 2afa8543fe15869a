/**
 * Deterministic hashing for the simulated world: every value the simulator returns is a function of
 * (seed, what is asked, world time), so tests can predict it and two runs agree. cyrb53 is fast and
 * well spread, which matters at thousands of requests per second.
 */
export function hashOf(...parts: (string | number)[]): number {
  const text = parts.join('\u0000');
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A number in [0, 1) from a 53-bit hash and an integer, without string work (hot paths). */
export function unitOfPair(hash: number, value: number): number {
  let h =
    Math.imul((hash % 4294967296) ^ Math.imul(value | 0, 0x9e3779b1), 0x85ebca6b) ^ Math.floor(value / 4294967296);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x27d4eb2f);
  return ((h ^ (h >>> 15)) >>> 0) / 4294967296;
}

/** A sequence of numbers in [0, 1) from a 32-bit seed (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded sequence for one entity: pick(), between() and chance() draw in a fixed order. */
export class Draws {
  readonly unit: () => number;

  constructor(...parts: (string | number)[]) {
    this.unit = seededRandom(hashOf(...parts) % 4294967296);
  }

  between(min: number, max: number): number {
    return min + (max - min) * this.unit();
  }

  /** An integer in [min, max]. */
  integer(min: number, max: number): number {
    return min + Math.floor((max - min + 1) * this.unit());
  }

  chance(probability: number): boolean {
    return this.unit() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.unit() * items.length)] as T;
  }

  hex(digits: number): string {
    const bytes = Buffer.allocUnsafe(Math.ceil(digits / 8) * 4);
    for (let offset = 0; offset < bytes.length; offset += 4)
      bytes.writeUInt32BE(Math.floor(this.unit() * 4294967296), offset);
    return bytes.toString('hex', 0, Math.ceil(digits / 2)).slice(0, digits);
  }
}

/**
 * A number rounded to `digits` (at most 15) significant digits. Arithmetic rather than toPrecision
 * for speed; the powers of ten used are exact doubles, so the result prints as the rounded decimal.
 */
export function significant(value: number, digits = 12): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  const exponent = digits - 1 - Math.floor(Math.log10(Math.abs(value)));
  if (exponent >= 0 && exponent <= 22) return Math.round(value * 10 ** exponent) / 10 ** exponent;
  if (exponent < 0 && exponent >= -22) return Math.round(value / 10 ** -exponent) * 10 ** -exponent;
  return Number(value.toPrecision(digits));
}
