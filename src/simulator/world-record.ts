import { InvalidInputError } from '../errors.ts';
import { worldChanges } from './changes.ts';
import { HABIT_MIX, walletHabit, WORLD_DATASETS, type WalletHabit, type WorldDataset } from './habits.ts';
import type { SimulatorWorld } from './world.ts';

/**
 * The living world's record over HTTP, for end-to-end tests and benchmarks that run the simulator as
 * a process (docs/simulator.md, "Endpoints"):
 *
 *   GET  /_simulator/changes?address=A&dataset=positions|nfts&from=T&to=T
 *        -> { address, dataset, habit, meanIntervalMs, from, to, changes: [ms, ...] }
 *        changes with from < time <= to (worldChanges); T in ms or ISO 8601; `to` defaults to now
 *   GET  /_simulator/habits[?address=A&address=B...]  -> { mix, wallets: [WalletHabit, ...] }
 *   POST /_simulator/habits  { addresses: [...] }     -> { mix, wallets: [WalletHabit, ...] }
 */
export const MAX_CHANGES_SPAN_MS = 400 * 86_400_000;
export const MAX_HABIT_ADDRESSES = 10_000;

export interface WorldRecordRequest {
  route: 'changes' | 'habits';
  query: URLSearchParams;
  /** The parsed body of a POST; undefined for a GET. */
  body?: unknown;
  seed: string;
  world: SimulatorWorld;
  worldTimeMs: number;
}

/** The answer's body; throws InvalidInputError for a request it cannot answer. */
export function worldRecord(request: WorldRecordRequest): unknown {
  if (!request.world.habits)
    throw new InvalidInputError('the living world is off: start the simulator with --habits (world.habits)');
  if (request.route === 'changes') return changesRecord(request);
  const addresses = request.body === undefined ? request.query.getAll('address') : bodyAddresses(request.body);
  return { mix: HABIT_MIX, wallets: addresses.map((address) => walletHabit(address, request.seed)) };
}

function changesRecord({ query, seed, world, worldTimeMs }: WorldRecordRequest) {
  const address = query.get('address');
  if (!address) throw new InvalidInputError('address is required');
  const dataset = query.get('dataset') as WorldDataset;
  if (!WORLD_DATASETS.includes(dataset)) throw new InvalidInputError('dataset must be positions or nfts');
  const from = readTime('from', query.get('from'));
  const to = query.get('to') === null ? worldTimeMs : readTime('to', query.get('to'));
  if (to - from > MAX_CHANGES_SPAN_MS)
    throw new InvalidInputError(`from and to are more than ${MAX_CHANGES_SPAN_MS / 86_400_000} days apart`);
  const habit: WalletHabit = walletHabit(address, seed);
  const changes = worldChanges(address, dataset, from, to, seed, world);
  const { meanIntervalMs } = habit[dataset];
  return { address: habit.address, dataset, habit: habit.habit, meanIntervalMs, from, to, changes };
}

function readTime(name: string, value: string | null): number {
  if (value === null || value === '') throw new InvalidInputError(`${name} is required (ms or ISO 8601)`);
  const ms = /^-?\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(ms)) throw new InvalidInputError(`${name} must be a time in ms or ISO 8601`);
  return ms;
}

function bodyAddresses(body: unknown): string[] {
  const { addresses } = (typeof body === 'object' && body !== null ? body : {}) as { addresses?: unknown };
  if (!Array.isArray(addresses) || !addresses.every((address) => typeof address === 'string'))
    throw new InvalidInputError('the body must be { "addresses": [string, ...] }');
  if (addresses.length > MAX_HABIT_ADDRESSES)
    throw new InvalidInputError(`at most ${MAX_HABIT_ADDRESSES} addresses per request`);
  return addresses as string[];
}
