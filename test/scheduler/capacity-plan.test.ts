import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUpstreamRate } from '../../src/config/upstream-rate.ts';
import { loadOptions } from '../../src/config/options.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import {
  capacityWarning,
  computeCapacityPlan,
  cronSlotsPerHour,
  describeCapacityPlan,
  formatMinutes,
  formatPerHour,
  loadCapacityPlan,
  type CapacityPlanCrons,
  type CapacityPlanInput,
} from '../../src/scheduler/capacity-plan.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const DEFAULT_CRONS: CapacityPlanCrons = {
  prices: '* * * * *',
  positions: '*/15 * * * *',
  nfts: '0 * * * *',
  maintenance: '30 3 * * *',
};
const PRIORITY = ['prices', 'positions', 'nfts'] as const;
/** The one protocol list a day that maintenance reads. */
const MAINTENANCE_PER_HOUR = 1 / 24;

function plan(input: Partial<Omit<CapacityPlanInput, 'rate'>> & { rate: string }) {
  return computeCapacityPlan({
    tokens: 1,
    addresses: 0,
    crons: DEFAULT_CRONS,
    priority: PRIORITY,
    ...input,
    rate: parseUpstreamRate(input.rate),
  });
}

const byDataset = (p: ReturnType<typeof plan>, dataset: string) => p.datasets.find((d) => d.dataset === dataset)!;

describe('cron slots per hour', () => {
  it('counts every minute, quarter, hour and day cron exactly', () => {
    expect(cronSlotsPerHour('* * * * *')).toBe(60);
    expect(cronSlotsPerHour('*/15 * * * *')).toBe(4);
    expect(cronSlotsPerHour('0 * * * *')).toBe(1);
    expect(cronSlotsPerHour('30 3 * * *')).toBeCloseTo(1 / 24, 12);
    expect(cronSlotsPerHour('0 9-17 * * *')).toBeCloseTo(9 / 24, 12);
  });

  it('counts days of the week, of the month, months and leap days exactly', () => {
    // Weekdays at 09:00 and 15:30: ten a week.
    expect(cronSlotsPerHour('0 9 * * 1-5') * 168).toBeCloseTo(5, 9);
    expect(cronSlotsPerHour('0,30 9 * * 1-5') * 168).toBeCloseTo(10, 9);
    // The 1st of every month, and the 10th of March: 12 and 1 a year (of 365.25 days).
    expect(cronSlotsPerHour('0 0 1 * *') * 24 * 365.25).toBeCloseTo(12, 9);
    expect(cronSlotsPerHour('0 0 10 3 *') * 24 * 365.25).toBeCloseTo(1, 9);
    // 29 February: once in four years.
    expect(cronSlotsPerHour('0 12 29 2 *') * 24 * 365.25).toBeCloseTo(0.25, 9);
  });
});

describe('capacity plan', () => {
  it("takes the quota's requests per hour as available", () => {
    expect(plan({ rate: '40/min' }).availablePerHour).toBe(2400);
    expect(plan({ rate: '2/s' }).availablePerHour).toBe(7200);
    expect(plan({ rate: '10000/day' }).availablePerHour).toBeCloseTo(10_000 / 24, 9);
  });

  it('300 addresses at 40/min with the default crons: fits, each dataset at its cron period', () => {
    const result = plan({ tokens: 2, addresses: 300, rate: '40/min' });
    expect(result.availablePerHour).toBe(2400);
    expect(result.datasets.map((d) => [d.dataset, d.requestsPerSlot, d.neededPerHour])).toEqual([
      ['prices', 1, 60],
      ['positions', 300, 1200],
      ['nfts', 300, 300],
    ]);
    expect(result.neededPerHour).toBeCloseTo(1560 + MAINTENANCE_PER_HOUR, 9);
    expect(result.fits).toBe(true);
    expect(result.ratio).toBeCloseTo(0.65, 3);
    expect(result.datasets.map((d) => d.cadenceMinutes)).toEqual([1, 15, 60]);
    expect(describeCapacityPlan(result)).toEqual([
      'prices every 1 min needs 60 req/h (1 request per slot); 2,400 req/h of the quota left for it; fits',
      'positions every 15 min needs 1,200 req/h (300 requests per slot); 2,340 req/h of the quota left for it; fits',
      'nfts every 1 h needs 300 req/h (300 requests per slot); 1,140 req/h of the quota left for it; fits',
      'in all: needs 1,560 req/h; the quota (40/min) allows 2,400 req/h; fits (65% of the quota)',
    ]);
    expect(capacityWarning(result)).toBeUndefined();
  });

  it('300 addresses at 40/min with positions and NFTs every 15 min: one cycle takes the whole quota, NFTs fall behind', () => {
    // The issue: one positions-and-NFT cycle of 300 addresses takes 15 minutes at 40/min.
    const result = plan({
      tokens: 2,
      addresses: 300,
      rate: '40/min',
      crons: { ...DEFAULT_CRONS, nfts: '*/15 * * * *' },
    });
    expect(result.fits).toBe(false);
    expect(result.neededPerHour).toBeCloseTo(2460 + MAINTENANCE_PER_HOUR, 9);
    const nfts = byDataset(result, 'nfts');
    expect(byDataset(result, 'positions').fits).toBe(true);
    expect(nfts.grantedPerHour).toBeCloseTo(1140 - MAINTENANCE_PER_HOUR, 9);
    // 300 addresses at 1,140 requests an hour: each address every 15.8 minutes.
    expect(nfts.cadenceMinutes).toBeCloseTo((300 * 60) / (1140 - MAINTENANCE_PER_HOUR), 9);
    const lines = describeCapacityPlan(result);
    expect(lines[2]).toBe(
      'nfts every 15 min needs 1,200 req/h (300 requests per slot); 1,140 req/h of the quota left for it; every 15.8 min at best',
    );
    // Just over the quota: two decimals, never "1.0x".
    expect(lines[3]).toBe(
      'in all: needs 2,460 req/h; the quota (40/min) allows 2,400 req/h; over budget: needs 1.03x the quota: nfts every 15.8 min at best',
    );
    expect(lines[4]).toBe(
      'to fit: a quota of at least 42/min, fewer addresses or tokens, or slower crons (docs/quota.md)',
    );
  });

  it('150 addresses at 2/s with positions and NFT crons every minute: 2.5x the quota, positions slowed, NFTs never', () => {
    const result = plan({
      tokens: 2,
      addresses: 150,
      rate: '2/s',
      crons: { ...DEFAULT_CRONS, positions: '* * * * *', nfts: '* * * * *' },
    });
    expect(result.availablePerHour).toBe(7200);
    expect(result.neededPerHour).toBeCloseTo(60 + 9000 + 9000 + MAINTENANCE_PER_HOUR, 9);
    expect(result.fits).toBe(false);
    // What the issue measured: the backlog grew by about 180 jobs a minute.
    expect((result.neededPerHour - result.availablePerHour) / 60).toBeCloseTo(181, 0);
    const positions = byDataset(result, 'positions');
    expect(positions.grantedPerHour).toBeCloseTo(7140 - MAINTENANCE_PER_HOUR, 9);
    expect(positions.cadenceMinutes).toBeCloseTo((150 * 60) / positions.grantedPerHour, 9);
    const nfts = byDataset(result, 'nfts');
    expect([nfts.leftPerHour, nfts.grantedPerHour, nfts.cadenceMinutes, nfts.fits]).toEqual([0, 0, null, false]);
    expect(describeCapacityPlan(result)).toEqual([
      'prices every 1 min needs 60 req/h (1 request per slot); 7,200 req/h of the quota left for it; fits',
      'positions every 1 min needs 9,000 req/h (150 requests per slot); 7,140 req/h of the quota left for it; every 1.3 min at best',
      'nfts every 1 min needs 9,000 req/h (150 requests per slot); nothing left; never (the quota is used up by prices and positions)',
      'in all: needs 18,060 req/h; the quota (2/s) allows 7,200 req/h; over budget: needs 2.5x the quota: positions every 1.3 min at best, nfts never',
      'to fit: a quota of at least 6/s, fewer addresses or tokens, or slower crons (docs/quota.md)',
    ]);
    expect(capacityWarning(result)).toBe(
      'the watchlist needs 2.5x the upstream quota (18,060 req/h; 2/s allows 7,200): positions every 1.3 min at best, nfts never; see `chaintap plan`',
    );
  });

  it('positions every 15 min needing 2.4x the quota: every 36 min at best', () => {
    const result = plan({ tokens: 0, addresses: 1440, rate: '40/min' });
    expect(byDataset(result, 'positions').neededPerHour / result.availablePerHour).toBe(2.4);
    expect(byDataset(result, 'positions').cadenceMinutes).toBeCloseTo(36, 2);
    expect(describeCapacityPlan(result)).toEqual([
      'prices: no watched tokens, no requests',
      'positions every 15 min needs 5,760 req/h (1,440 requests per slot); 2,400 req/h of the quota left for it; every 36 min at best',
      'nfts every 1 h needs 1,440 req/h (1,440 requests per slot); nothing left; never (the quota is used up by positions)',
      'in all: needs 7,200 req/h; the quota (40/min) allows 2,400 req/h; over budget: needs 3.0x the quota: positions every 36 min at best, nfts never',
      'to fit: a quota of at least 121/min, fewer addresses or tokens, or slower crons (docs/quota.md)',
    ]);
  });

  it('serves the datasets in the configured order', () => {
    const result = plan({ tokens: 2, addresses: 150, rate: '2/s', priority: ['nfts', 'prices', 'positions'] });
    // 150 NFT requests an hour first, then prices, then positions with the rest.
    expect(result.datasets.map((d) => d.dataset)).toEqual(['nfts', 'prices', 'positions']);
    expect(result.fits).toBe(true);
    const starved = plan({
      tokens: 2,
      addresses: 150,
      rate: '2/s',
      crons: { ...DEFAULT_CRONS, positions: '* * * * *', nfts: '* * * * *' },
      priority: ['nfts', 'positions', 'prices'],
    });
    expect(byDataset(starved, 'nfts').fits).toBe(false);
    expect(byDataset(starved, 'positions').cadenceMinutes).toBeNull();
    expect(byDataset(starved, 'prices').cadenceMinutes).toBeNull();
    expect(describeCapacityPlan(starved)[2]).toBe(
      'prices every 1 min needs 60 req/h (1 request per slot); nothing left; never (the quota is used up by nfts)',
    );
  });

  it('counts one price request per batch of 50 tokens', () => {
    expect(byDataset(plan({ tokens: 50, rate: '1/s' }), 'prices').requestsPerSlot).toBe(1);
    expect(byDataset(plan({ tokens: 51, rate: '1/s' }), 'prices').requestsPerSlot).toBe(2);
    expect(byDataset(plan({ tokens: 0, rate: '1/s' }), 'prices').neededPerHour).toBe(0);
  });

  it('plans a yearly cron at its yearly period', () => {
    const result = plan({ tokens: 2, addresses: 5, rate: '40/min', crons: { ...DEFAULT_CRONS, nfts: '0 0 10 3 *' } });
    expect(byDataset(result, 'nfts').cadenceMinutes! / 1440).toBeCloseTo(365.25, 6);
    expect(describeCapacityPlan(result)[2]).toMatch(/^nfts every 365.3 d needs < 0.01 req\/h \(5 requests per slot\)/);
  });

  it('is plain JSON: "never" is null', () => {
    const result = plan({ tokens: 2, addresses: 150, rate: '2/s', crons: { ...DEFAULT_CRONS, nfts: '* * * * *' } });
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});

describe('formats', () => {
  it('reads as people write rates and durations', () => {
    expect([0, 0.0006, 0.04, 60, 1200, 7139.96].map(formatPerHour)).toEqual([
      '0',
      '< 0.01',
      '0.04',
      '60',
      '1,200',
      '7,140',
    ]);
    expect([1, 1.26, 15, 15.38, 36.0004, 60, 150, 4320, null].map(formatMinutes)).toEqual([
      '1 min',
      '1.3 min',
      '15 min',
      '15.4 min',
      '36 min',
      '1 h',
      '2.5 h',
      '3 d',
      'never',
    ]);
  });
});

describe('loadCapacityPlan', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it('plans the watchlist in the database with the configured crons, quota and order', async () => {
    const tokens = Array.from({ length: 51 }, (_, i) => `0x${(i + 16).toString(16).padStart(64, '0')}::coin::C`);
    await addWatchedTokens(database, tokens);
    await addWatchedAddresses(
      database,
      Array.from({ length: 3 }, (_, i) => `0x${String(i + 1).repeat(64)}`),
      {},
    );
    const options = loadOptions({ POSITIONS_CRON: '*/5 * * * *', DATASET_PRIORITY: 'positions,prices,nfts' }, {});
    const result = await loadCapacityPlan(database, options);
    expect(result.tokens).toBe(51);
    expect(result.addresses).toBe(3);
    expect(result.rate.label).toBe('40/min');
    expect(result.datasets.map((d) => [d.dataset, d.requestsPerSlot, d.neededPerHour])).toEqual([
      ['positions', 3, 36],
      ['prices', 2, 120],
      ['nfts', 3, 3],
    ]);
  });

  it('counts the requests of each dataset over the addresses watching it', async () => {
    await addWatchedAddresses(database, ['9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'], {
      datasets: ['nfts'],
      nftChain: 'SOL',
    });
    await addWatchedAddresses(database, [`0x${'1'.repeat(64)}`], { datasets: ['positions'] });
    const result = await loadCapacityPlan(database, loadOptions({}, {}));
    expect(result).toMatchObject({ addresses: 4, positionAddresses: 3, nftAddresses: 3 });
    expect(result.datasets.map((d) => [d.dataset, d.requestsPerSlot])).toEqual([
      ['prices', 2],
      ['positions', 3],
      ['nfts', 3],
    ]);
    expect(describeCapacityPlan(result)[0]).toMatch(/^prices every 1 min/);
  });
});
