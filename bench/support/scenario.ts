import type { ScenarioResult } from './report.ts';
import type { BenchServices } from './services.ts';

export interface ScenarioContext {
  services: BenchServices;
  /** Progress on stderr (the table goes to stdout). */
  log(message: string): void;
  /** `--name value` arguments of `npm run bench` (soak: --days, --wallets, --tokens). */
  settings?: Record<string, string>;
}

export interface Scenario {
  name: string;
  /** One line: what it measures. */
  description: string;
  run(context: ScenarioContext): Promise<ScenarioResult>;
  /** Run only when named (the soak: an hour), not by a plain `npm run bench`. */
  onlyByName?: boolean;
}

/** Deterministic test inputs: the i-th watched address and coin type. */
export function benchAddress(i: number): string {
  return `0x${(0xbe000000 + i).toString(16).padStart(64, '0')}`;
}

export function benchCoinType(i: number): string {
  return `0x${(0xc0000 + i).toString(16).padStart(64, '0')}::bench${i}::BENCH${i}`;
}

export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export const MB = 1024 * 1024;
