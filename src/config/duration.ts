/**
 * Durations as people write them in settings, flags and rules files: a whole number and one unit,
 * as in `30s`, `10m`, `1h`, `1d`, `1w`.
 */
const UNITS_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** Milliseconds of a duration such as `10m`, or undefined when it is not one (or is zero). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})(s|m|h|d|w)$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNITS_MS[match[2] as keyof typeof UNITS_MS];
  return ms > 0 ? ms : undefined;
}

/** The shortest spelling of a duration in the units above: 3_600_000 -> `1h`, 90_000 -> `90s`. */
export function formatDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    if (ms >= UNITS_MS[unit] && ms % UNITS_MS[unit] === 0) return `${ms / UNITS_MS[unit]}${unit}`;
  }
  return `${Math.round(ms)}ms`;
}
