import { ConfigError } from '../errors.ts';
import { seededRandom } from './hash.ts';
import { WINDOW_KINDS, type WindowKind } from './request-window.ts';

/** Faults the simulated upstream injects (none by default); rates are shares of authenticated requests, 0 to 1. */
export const NO_FAULTS = {
  latencyMs: 0,
  latencyJitterMs: 0,
  spikeRate: 0,
  spikeMs: 0,
  error5xxRate: 0,
  error429Rate: 0,
  retryAfterSeconds: 1,
  malformedRate: 0,
  timeoutRate: 0,
  /** 0 = off; else a request past this many in its window (rateLimitWindowMs) is answered 429. */
  rateLimit: 0,
  rateLimitWindowMs: 1000,
  /** How the window counts (request-window.ts): trailing open, trailing closed, or calendar-fixed. */
  rateLimitWindow: 'sliding' as WindowKind,
};
export type SimulatorFaults = typeof NO_FAULTS;

const RATES = ['spikeRate', 'error5xxRate', 'error429Rate', 'malformedRate', 'timeoutRate'] as const;

/** The faults with `changes` applied; throws ConfigError for a negative value, a rate above 1 or shares above 1. */
export function resolveFaults(changes: Partial<SimulatorFaults>, current: SimulatorFaults = NO_FAULTS) {
  const faults = { ...current };
  for (const [name, value] of Object.entries(changes) as [keyof SimulatorFaults, unknown][]) {
    if (value === undefined) continue;
    if (!(name in NO_FAULTS)) throw new ConfigError(`unknown simulator fault "${name}"`);
    if (name === 'rateLimitWindow') {
      if (!WINDOW_KINDS.includes(value as WindowKind))
        throw new ConfigError(`simulator fault rateLimitWindow must be one of ${WINDOW_KINDS.join(', ')}`);
      faults.rateLimitWindow = value as WindowKind;
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new ConfigError(`simulator fault ${name} must be a non-negative number`);
    faults[name] = value;
  }
  if (!(faults.rateLimitWindowMs >= 1)) throw new ConfigError('simulator fault rateLimitWindowMs must be at least 1');
  for (const name of RATES)
    if (faults[name] > 1) throw new ConfigError(`simulator fault ${name} must be between 0 and 1`);
  const shares = faults.error5xxRate + faults.error429Rate + faults.malformedRate + faults.timeoutRate;
  if (shares > 1)
    throw new ConfigError(
      'simulator faults error5xxRate + error429Rate + malformedRate + timeoutRate must not exceed 1',
    );
  return faults;
}

/** The faults a request may draw, in the order their rates are stacked on the roll. */
const FAULT_RATES = [
  ['timeout', 'timeoutRate'],
  ['error5xx', 'error5xxRate'],
  ['error429', 'error429Rate'],
  ['malformed', 'malformedRate'],
] as const;
type FaultKind = (typeof FAULT_RATES)[number][0] | 'none';

/**
 * Fault draws from a seeded sequence. Every request takes exactly four numbers, so the counts of
 * each fault over N requests depend only on the seed and N, not on the order requests arrive in.
 */
export class FaultDraws {
  private readonly next: () => number;

  constructor(seed: number = Math.floor(Math.random() * 4294967296)) {
    this.next = seededRandom(seed);
  }

  /** The fault, the delay before the answer (latency, jitter, spike) and, in [0, 1), the fault's flavour. */
  draw(faults: SimulatorFaults) {
    const kindRoll = this.next();
    const jitterRoll = this.next();
    const spikeRoll = this.next();
    const flavour = this.next();
    const delayMs =
      faults.latencyMs + jitterRoll * faults.latencyJitterMs + (spikeRoll < faults.spikeRate ? faults.spikeMs : 0);
    return { kind: faultKind(kindRoll, faults), delayMs, flavour };
  }
}

export type FaultDecision = ReturnType<FaultDraws['draw']>;

function faultKind(roll: number, faults: SimulatorFaults): FaultKind {
  let bound = 0;
  for (const [kind, rate] of FAULT_RATES) {
    bound += faults[rate];
    if (roll < bound) return kind;
  }
  return 'none';
}
