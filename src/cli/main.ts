import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { addressesCommand } from './commands/addresses.ts';
import { alertsCommand } from './commands/alerts.ts';
import { backfillCommand } from './commands/backfill.ts';
import { configCommand } from './commands/config.ts';
import { demoCommand } from './commands/demo.ts';
import { migrateCommand } from './commands/migrate.ts';
import { planCommand } from './commands/plan.ts';
import { probeCommand } from './commands/probe.ts';
import { rawCommand } from './commands/raw.ts';
import { reportCommand } from './commands/report.ts';
import { runOnceCommand } from './commands/run-once.ts';
import { schedulerCommand, startCommand, workerCommand } from './commands/services.ts';
import { simulateCommand } from './commands/simulate.ts';
import { statusCommand } from './commands/status.ts';
import { tokensCommand } from './commands/tokens.ts';
import { watchlistCommand } from './commands/watchlist.ts';
import { EXIT } from './exit-codes.ts';

// Only commander and the command declarations load here: each command imports what it uses when it
// runs (`chaintap --help` and `tokens list` start without fastify, BullMQ, ioredis or Drizzle).

// `.env` from the working directory; variables already set win. The names it set: `chaintap config`
// says which settings came from it.
const envFileNames = new Set<string>();
if (existsSync('.env')) {
  const before = new Set(Object.keys(process.env));
  process.loadEnvFile('.env');
  for (const name of Object.keys(process.env)) if (!before.has(name)) envFileNames.add(name);
}

/** How long a finished command's process may take to exit by itself before it is ended. */
const EXIT_AFTER_COMMAND_MS = 2_000;

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const program = new Command('chaintap')
  .description('Ingests SUI token prices, DeFi positions and NFT holdings from a blockchain data service into Postgres')
  .version(version, '-V, --version', 'print the version and exit')
  .showHelpAfterError()
  .exitOverride();

for (const command of [
  migrateCommand(),
  tokensCommand(),
  addressesCommand(),
  watchlistCommand(),
  runOnceCommand(),
  backfillCommand(),
  startCommand(),
  workerCommand(),
  schedulerCommand(),
  demoCommand(),
  statusCommand(),
  planCommand(),
  configCommand(envFileNames),
  alertsCommand(),
  rawCommand(),
  probeCommand(),
  reportCommand(),
  simulateCommand(process.env),
]) {
  program.addCommand(command);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = error instanceof CommanderError ? error.exitCode : EXIT.failed;
  if (!(error instanceof CommanderError)) {
    // Expected failures (bad input, a setting, a server that cannot be reached): one line, no stack.
    const [{ describeFailure }, { formatFatalError }, { secretValues }] = await Promise.all([
      import('./failure.ts'),
      import('../runtime/scrub.ts'),
      import('../config/secrets.ts'),
    ]);
    console.error(formatFatalError(error, secretValues(process.env), describeFailure(error, process.env)));
  }
}

// Each command closes what it opened, so nothing should hold the process now; BullMQ workers closed
// by force while Redis is down are known to leave timers running (src/worker/workers.ts). This
// unreferenced timer fires only when something holds the process, and says what before ending it.
setTimeout(() => {
  // Standard output and error show as TTYWrap or PipeWrap, and hold nothing.
  const handles = process.getActiveResourcesInfo().filter((type) => type !== 'TTYWrap' && type !== 'PipeWrap');
  console.error(
    `chaintap: ${handles.join(', ') || 'a handle'} still open ${EXIT_AFTER_COMMAND_MS / 1000} s after the command ended: exiting`,
  );
  process.exit();
}, EXIT_AFTER_COMMAND_MS).unref();
