import { addWatchedAddresses, addWatchedTokens, listWatchedAddresses, listWatchedTokens } from '../db/index.ts';
import { loadOptions } from '../config/options.ts';
import type { Context } from '../runtime/context.ts';
import { runBackfill } from './backfill-prices.ts';
import { floorToMinute } from '../scheduler/cron-slots.ts';
import { startSimulator } from '../simulator/index.ts';
import { openResources, openUpstreamClient } from './resources.ts';
import { createCliContext } from './runtime.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import { ensureDemoServices } from './local-services.ts';
import { assertSafeOpsExposure } from '../ops/exposure.ts';
import { createLogger } from '../runtime/logger.ts';
import { createDatabase } from '../db/client.ts';
import { createReaderLogin } from '../db/reader-login.ts';
import { describe } from '../errors.ts';
import { migrateDatabase } from './commands/migrate.ts';
import { runServices } from './run-services.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const DEMO_API_KEY = 'demo-key-not-secret';

const DEMO_TOKENS = [
  '0x2::sui::SUI',
  '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC',
  '0x06864a6f921804860930db6ddbe2e16acdf8504495ea7481637a1c8b9a8fe54b::cetus::CETUS',
  '0xa99b8952d4f7d947ea77fe0ecdcc9e5fc0bcab2841d6e2a5aa00c3044e5544b5::navx::NAVX',
  '0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN',
];

const DEMO_ADDRESSES = [
  '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e',
  '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809',
  '0x5c6e4b2a8f1d0e3c7b9a2f4d6e8c0a1b3d5f7e9c2a4b6d8f0e1c3a5b7d9f2e4c',
];

/** A sample watchlist when it is empty, and a day of hourly prices: the charts have a history at once. */
async function seedDemo(context: Context): Promise<void> {
  await withShutdown(context.logger, async (shutdown) => {
    const resources = await openResources(context, shutdown);
    const client = openUpstreamClient(context, shutdown);
    const { database } = resources;
    if ((await listWatchedTokens(database)).length === 0) await addWatchedTokens(database, DEMO_TOKENS);
    if ((await listWatchedAddresses(database)).length === 0)
      await addWatchedAddresses(database, DEMO_ADDRESSES, { includePnl: true });
    const to = floorToMinute(new Date());
    to.setUTCMinutes(0);
    await runBackfill({ context, ...resources, client }, { from: new Date(to.getTime() - DAY), to, intervalMs: HOUR });
  });
}

/** A read-only login for BI tools made for this run, or how to make one when Postgres refuses roles. */
async function readerLoginLine(databaseUrl: string): Promise<string> {
  const database = createDatabase(databaseUrl, { max: 1 });
  try {
    const url = await createReaderLogin(database, databaseUrl);
    return `read-only SQL for BI tools (the data tables and reporting views, docs/schema.md): ${url}`;
  } catch (error) {
    return `no read-only login for BI tools (${describe(error)}): create one as docs/schema.md says`;
  } finally {
    await database.close();
  }
}

/** The simulated upstream's quota unless one is set (the free tier's 40/min would be slow). */
const DEMO_RATE = '20/s';

/**
 * `chaintap demo`: PostgreSQL and Redis (throwaway ones when none answers), the simulated upstream in
 * this process, migrations, a sample watchlist, then `start` with a first tick of every dataset.
 */
export async function runDemo(): Promise<void> {
  const settings = loadOptions();
  // Before anything is started: an exposed ops port without OPS_TOKEN is refused (docs/operations.md).
  assertSafeOpsExposure(settings);
  const apiKey = settings.UPSTREAM_API_KEY ?? DEMO_API_KEY;
  const logger = createLogger({ level: settings.LOG_LEVEL, secrets: [apiKey] });
  const services = await ensureDemoServices(settings.DATABASE_URL, settings.REDIS_URL, logger);
  // Its own simulated upstream, whatever UPSTREAM_BASE_URL says, on a free port of this machine.
  const simulator = await startSimulator({ apiKey, host: '127.0.0.1', port: 0 }).catch(async (error: unknown) => {
    await services.stop();
    throw error;
  });
  try {
    const rateIsSet = Boolean(process.env.UPSTREAM_RATE || process.env.UPSTREAM_RPS);
    const context = createCliContext({
      UPSTREAM_API_KEY: apiKey,
      UPSTREAM_BASE_URL: simulator.url,
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      ...(rateIsSet ? {} : { UPSTREAM_RATE: DEMO_RATE }),
    });
    for (const line of services.started) console.log(`started a throwaway ${line}; removed when the demo stops`);
    await migrateDatabase(services.databaseUrl);
    console.log(await readerLoginLine(services.databaseUrl));
    await seedDemo(context);
    console.log(
      `simulated upstream at ${simulator.url}; status page at http://${settings.OPS_HOST}:${settings.OPS_PORT}/ ; Ctrl-C to stop`,
    );
    await runServices({ scheduler: true, workers: true, ops: true, produceNow: true, alerts: true }, context);
  } finally {
    await simulator.close();
    await services.stop();
  }
}
