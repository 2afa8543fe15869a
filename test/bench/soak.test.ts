import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runSoak, soakSettings } from '../../bench/scenarios/soak.ts';
import type { SoakDay } from '../../bench/support/soak-results.ts';

// The soak's own code paths on a few logical hours (the soak itself: `npm run bench -- soak`).
const out = mkdtempSync(join(tmpdir(), 'chaintap-soak-test-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('runs the pipeline through logical hours, reconciles every slot and writes its figures and charts', async () => {
  const settings = soakSettings({ days: '0.05', wallets: '2', tokens: '2', faults: 'off', out });
  const { figures } = await runSoak(settings, () => undefined);
  const value = (name: string) => figures.find((figure) => figure.name === name)?.value;
  expect(value('jobs missing a succeeded run')).toBe(0);
  expect(value('slots whose rows differ from the simulator')).toBe(0);
  expect(value('price minutes without a price')).toBe(0);
  // 72 price minutes, 5 positions and 2 NFT slots of 2 wallets.
  expect(value('jobs run')).toBe(72 + 5 * 2 + 2 * 2);
  const record = JSON.parse(readFileSync(join(out, 'soak-days.json'), 'utf8')) as { days: SoakDay[] };
  expect(record.days).toHaveLength(1);
  expect(record.days[0]!.redis.keys).toBeGreaterThan(0);
  const [day] = record.days;
  expect(day!.tables.token_price_points).toBeGreaterThan(0);
  // Its indexes are part of its bytes: the primary key at least.
  expect(day!.indexes.token_price_points).toBeGreaterThan(0);
  expect(day!.indexes.token_price_points).toBeLessThan(day!.tables.token_price_points!);
  // The scheduler in a process of its own; the benchmark's own process beside it.
  expect(day!.processes.map((p) => p.name).sort()).toEqual(['alerts', 'bench', 'scheduler', 'worker-1', 'worker-2']);
  // Every run counted, as the figures count them.
  expect(day!.rows?.ingestion_runs).toBe(72 + 5 * 2 + 2 * 2);
  expect(day!.rows?.position_refreshes).toBe(5 * 2);
  for (const p of day!.processes) expect(p.youngGeneration).toBeGreaterThan(0);
  const charts = readdirSync(out).filter((file) => file.endsWith('.svg'));
  expect(charts.sort()).toEqual([
    'soak-heap.svg',
    'soak-postgres.svg',
    'soak-queue-depth.svg',
    'soak-redis-keys.svg',
    'soak-redis-memory.svg',
    'soak-rss.svg',
    'soak-slot-time.svg',
  ]);
  expect(readFileSync(join(out, 'soak-postgres.svg'), 'utf8')).toMatch(/^<svg [^>]+>[\s\S]*<\/svg>\n$/);
}, 120_000);
