import type { Options } from '../config/options.ts';
import type { UpstreamRate } from '../config/upstream-rate.ts';
import type { Database } from '../db/client.ts';
import { loadWatchlistCounts } from '../db/stores/watchlist-counts.ts';
import { MAX_COINS_PER_PRICE_REQUEST } from '../upstream/limits.ts';
import type { Dataset } from '../datasets.ts';
import { cronMatcher } from './cron-slots.ts';

/**
 * The capacity plan: does the watchlist fit the upstream quota, and how often can each dataset
 * really refresh a target? Pure maths on averages per hour (no queueing model):
 * - requests per slot: prices one per batch of 50 tokens, positions and nfts one per address;
 * - needed = requests per slot x the cron's slots per hour; maintenance is taken off the quota first;
 * - granted: the datasets in DATASET_PRIORITY order each take what they need of what is left;
 * - cadence (minutes between two refreshes of a target): the cron's period when granted = needed,
 *   else requests per slot x 60 / granted (pending jobs are one per target, served in rotation).
 * Price catch-up only uses what is left over, so it is not counted.
 */

export type CapacityPlanCrons = Record<Dataset | 'maintenance', string>;

export interface CapacityPlanInput {
  tokens: number;
  addresses: number;
  /** Addresses watched for positions, and for NFT holdings (default: every address). */
  positionAddresses?: number;
  nftAddresses?: number;
  crons: CapacityPlanCrons;
  rate: UpstreamRate;
  /** Strict order in which the datasets are served when their requests wait for the quota. */
  priority: readonly Dataset[];
}

export type CapacityPlan = ReturnType<typeof computeCapacityPlan>;
export type DatasetPlan = CapacityPlan['datasets'][number];

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** 28 years from 2024-01-01 (UTC), 1,461 weeks and 7 leap cycles: every day field comes round evenly. */
const CYCLE_START = Date.UTC(2024, 0, 1);
const CYCLE_DAYS = 10_227;
// node-cron matches one time in about 7 µs: too slow to repeat on every /metrics scrape.
const slotsPerHourByCron = new Map<string, number>();

function countMatches(expression: string, start: number, step: number, count: number): number {
  const matcher = cronMatcher(expression);
  let matches = 0;
  for (let i = 0; i < count; i += 1) if (matcher.matches(new Date(start + i * step))) matches += 1;
  return matches;
}

/**
 * A cron's average slots per hour (UTC): its times of day (minute and hour fields, over one day) x
 * the share of days it runs on (its day and month fields, at midnight of each day of the cycle).
 */
export function cronSlotsPerHour(expression: string): number {
  let perHour = slotsPerHourByCron.get(expression);
  if (perHour === undefined) {
    const [minute, hour, dayOfMonth, month, dayOfWeek] = expression.trim().split(/\s+/);
    const timesOfDay = countMatches(`${minute} ${hour} * * *`, CYCLE_START, MINUTE_MS, 1440);
    const everyDay = dayOfMonth === '*' && month === '*' && dayOfWeek === '*';
    const dayShare = everyDay
      ? 1
      : countMatches(`0 0 ${dayOfMonth} ${month} ${dayOfWeek}`, CYCLE_START, DAY_MS, CYCLE_DAYS) / CYCLE_DAYS;
    perHour = (timesOfDay * dayShare) / 24;
    slotsPerHourByCron.set(expression, perHour);
  }
  return perHour;
}

function requestsPerSlot(dataset: Dataset, input: CapacityPlanInput): number {
  if (dataset === 'prices') return Math.ceil(input.tokens / MAX_COINS_PER_PRICE_REQUEST);
  return (dataset === 'positions' ? input.positionAddresses : input.nftAddresses) ?? input.addresses;
}

export function computeCapacityPlan(input: CapacityPlanInput) {
  const availablePerHour = input.rate.rps * 3600;
  const maintenancePerHour = cronSlotsPerHour(input.crons.maintenance);
  let left = Math.max(0, availablePerHour - maintenancePerHour);
  const datasets = input.priority.map((dataset) => {
    const cron = input.crons[dataset];
    const perSlot = requestsPerSlot(dataset, input);
    const slotsPerHour = cronSlotsPerHour(cron);
    const cronPeriodMinutes = slotsPerHour > 0 ? 60 / slotsPerHour : null;
    const neededPerHour = perSlot * slotsPerHour;
    const leftPerHour = left;
    const grantedPerHour = Math.min(neededPerHour, left);
    left -= grantedPerHour;
    const fits = grantedPerHour === neededPerHour;
    const cadenceMinutes = fits ? cronPeriodMinutes : grantedPerHour > 0 ? (perSlot * 60) / grantedPerHour : null;
    return {
      dataset,
      cron,
      requestsPerSlot: perSlot,
      slotsPerHour,
      cronPeriodMinutes,
      neededPerHour,
      leftPerHour,
      grantedPerHour,
      cadenceMinutes,
      fits,
    };
  });
  const neededPerHour = maintenancePerHour + datasets.reduce((sum, plan) => sum + plan.neededPerHour, 0);
  return {
    rate: input.rate,
    priority: [...input.priority],
    tokens: input.tokens,
    addresses: input.addresses,
    positionAddresses: input.positionAddresses ?? input.addresses,
    nftAddresses: input.nftAddresses ?? input.addresses,
    datasets,
    maintenanceCron: input.crons.maintenance,
    maintenancePerHour,
    neededPerHour,
    availablePerHour,
    ratio: neededPerHour / availablePerHour,
    fits: maintenancePerHour <= availablePerHour && datasets.every((plan) => plan.fits),
  };
}

export type CapacityPlanOptions = Pick<
  Options,
  'PRICE_CRON' | 'POSITIONS_CRON' | 'NFT_CRON' | 'MAINTENANCE_CRON' | 'UPSTREAM_RATE' | 'DATASET_PRIORITY'
>;

/** The plan for the current watchlist and settings. */
export async function loadCapacityPlan(database: Database, options: CapacityPlanOptions): Promise<CapacityPlan> {
  const counts = await loadWatchlistCounts(database);
  return computeCapacityPlan({
    ...counts,
    crons: cronsOf(options),
    rate: options.UPSTREAM_RATE,
    priority: options.DATASET_PRIORITY,
  });
}

/** Each cron queue's expression in the settings. */
export function cronsOf(options: CapacityPlanOptions): CapacityPlanCrons {
  return {
    prices: options.PRICE_CRON,
    positions: options.POSITIONS_CRON,
    nfts: options.NFT_CRON,
    maintenance: options.MAINTENANCE_CRON,
  };
}

/** "2 token(s), 3 address(es) (2 for positions, 3 for nfts)": the watchlist as the plan counts it. */
export function describeWatchlist(plan: CapacityPlan): string {
  const both = plan.positionAddresses === plan.addresses && plan.nftAddresses === plan.addresses;
  const split = both ? '' : ` (${plan.positionAddresses} for positions, ${plan.nftAddresses} for nfts)`;
  return `${plan.tokens} token(s), ${plan.addresses} address(es)${split}`;
}

/** "1,200", "0.04": requests per hour as people read them. */
export function formatPerHour(value: number): string {
  if (value > 0 && value < 0.01) return '< 0.01';
  return value.toLocaleString('en-US', { maximumFractionDigits: value >= 100 ? 0 : 2 });
}

/** "1.3 min", "15.4 min", "36 min", "1 h", "2.5 d"; "never" for null. */
export function formatMinutes(minutes: number | null): string {
  if (minutes === null) return 'never';
  // One decimal, so that a cadence just short of its cron's ("15.4 min" for 15) does not read as it.
  const oneDecimal = (value: number) => String(Number(value.toFixed(1)));
  if (minutes < 60) return `${oneDecimal(minutes)} min`;
  if (minutes < 48 * 60) return `${oneDecimal(minutes / 60)} h`;
  return `${oneDecimal(minutes / 1440)} d`;
}

/** "2.4x"; two decimals just over 1, so that an over-budget ratio never reads 1.0x. */
function formatRatio(ratio: number): string {
  return `${ratio.toFixed(ratio > 1 && ratio < 1.1 ? 2 : 1)}x`;
}

/** "every 8.1 min at best", "never (the quota is used up by prices and positions)", "every 15 min". */
export function describeCadence(plan: CapacityPlan, dataset: DatasetPlan): string {
  if (dataset.requestsPerSlot === 0) {
    if (dataset.dataset === 'prices') return 'no watched tokens';
    return plan.addresses === 0 ? 'no watched addresses' : `no address watched for ${dataset.dataset}`;
  }
  if (dataset.cadenceMinutes === null) {
    if (dataset.slotsPerHour === 0) return 'never (its cron has no slot)';
    const before = plan.datasets.slice(0, plan.datasets.indexOf(dataset)).filter((other) => other.grantedPerHour > 0);
    const users = before.length > 0 ? before.map((other) => other.dataset).join(' and ') : 'maintenance';
    return `never (the quota is used up by ${users})`;
  }
  return `every ${formatMinutes(dataset.cadenceMinutes)}${dataset.fits ? '' : ' at best'}`;
}

function requests(count: number): string {
  return `${count.toLocaleString('en-US')} request${count === 1 ? '' : 's'}`;
}

function describeDataset(plan: CapacityPlan, dataset: DatasetPlan): string {
  if (dataset.requestsPerSlot === 0 || dataset.slotsPerHour === 0) {
    return `${dataset.dataset}: ${describeCadence(plan, dataset)}, no requests`;
  }
  const needs = `${dataset.dataset} every ${formatMinutes(dataset.cronPeriodMinutes)} needs ${formatPerHour(dataset.neededPerHour)} req/h (${requests(dataset.requestsPerSlot)} per slot)`;
  const left =
    dataset.leftPerHour > 0 ? `${formatPerHour(dataset.leftPerHour)} req/h of the quota left for it` : 'nothing left';
  return `${needs}; ${left}; ${dataset.fits ? 'fits' : describeCadence(plan, dataset)}`;
}

/** "positions every 36 min at best, nfts never": the datasets the quota cannot serve in full. */
function shortfalls(plan: CapacityPlan): string {
  return plan.datasets
    .filter((dataset) => !dataset.fits)
    .map(({ dataset, cadenceMinutes }) =>
      cadenceMinutes === null ? `${dataset} never` : `${dataset} every ${formatMinutes(cadenceMinutes)} at best`,
    )
    .join(', ');
}

/** What would make an over-budget watchlist fit: the smallest quota that would, in the configured unit. */
export function howToFit(plan: CapacityPlan): string {
  const unit = plan.rate.label.slice(plan.rate.label.indexOf('/') + 1);
  const quota = `${Math.ceil((plan.neededPerHour * plan.rate.periodMs) / 3_600_000)}/${unit}`;
  return `a quota of at least ${quota}, fewer addresses or tokens, or slower crons`;
}

/** "fits (65% of the quota)" or "over budget: needs 2.4x the quota: positions every 36 min at best". */
export function describeVerdict(plan: CapacityPlan): string {
  if (plan.fits) return `fits (${Math.round(plan.ratio * 100)}% of the quota)`;
  return `over budget: needs ${formatRatio(plan.ratio)} the quota: ${shortfalls(plan)}`;
}

/** The plan in lines for people: one per dataset in priority order, the total, and what to do when over. */
export function describeCapacityPlan(plan: CapacityPlan): string[] {
  const lines = plan.datasets.map((dataset) => describeDataset(plan, dataset));
  lines.push(
    `in all: needs ${formatPerHour(plan.neededPerHour)} req/h; the quota (${plan.rate.label}) allows ${formatPerHour(plan.availablePerHour)} req/h; ${describeVerdict(plan)}`,
  );
  if (!plan.fits) lines.push(`to fit: ${howToFit(plan)} (docs/quota.md)`);
  return lines;
}

/** One sentence for the scheduler's log when the watchlist does not fit the quota; undefined when it does. */
export function capacityWarning(plan: CapacityPlan): string | undefined {
  if (plan.fits) return undefined;
  return `the watchlist needs ${formatRatio(plan.ratio)} the upstream quota (${formatPerHour(plan.neededPerHour)} req/h; ${plan.rate.label} allows ${formatPerHour(plan.availablePerHour)}): ${shortfalls(plan)}; see \`chaintap plan\``;
}
