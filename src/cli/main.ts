import { Command, CommanderError } from 'commander';
import { addressesCommand } from './commands/addresses.ts';
import { alertsCommand } from './commands/alerts.ts';
import { backfillCommand } from './commands/backfill.ts';
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
import { tuneProcess } from './process-tuning.ts';
import { describeFailure, loadDotEnv } from './runtime.ts';
import { formatFatalError } from '../runtime/scrub.ts';
import { secretValues } from '../config/secrets.ts';

loadDotEnv();

/** How long a finished command's process may take to exit by itself before it is ended. */
const EXIT_AFTER_COMMAND_MS = 2_000;

const program = new Command('chaintap')
  .description('Ingests SUI token prices, DeFi positions and NFT holdings from a blockchain data service into Postgres')
  .showHelpAfterError()
  .exitOverride()
  // The process-wide tuning (process-tuning.ts), decided once before the command runs.
  .hook('preAction', (_program, command) => tuneProcess(command, process.env));

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
  process.exitCode = error instanceof CommanderError ? error.exitCode : 1;
  if (!(error instanceof CommanderError)) {
    // Expected failures (bad input, a setting, a server that cannot be reached): one line, no stack.
    const line = describeFailure(error, process.env);
    const secrets = secretValues(process.env);
    console.error(formatFatalError(error, secrets, line));
  }
}

// The command has finished and closed everything it opened (each command closes through its
// shutdown registry, on success and on every error path alike), so nothing should hold the process.
// One known exception: BullMQ workers closed by force while Redis is down leave their lock-renewal
// and reconnect timers running (src/worker/workers.ts). Unreferenced, this timer fires only when
// something still holds the process open, and then says what before it ends the process.
setTimeout(() => {
  // Standard output and error show as TTYWrap or PipeWrap without holding the process.
  const handles = process.getActiveResourcesInfo().filter((type) => type !== 'TTYWrap' && type !== 'PipeWrap');
  console.error(
    `chaintap: ${handles.join(', ') || 'a handle'} still open ${EXIT_AFTER_COMMAND_MS / 1000} s after the command ended: exiting`,
  );
  process.exit();
}, EXIT_AFTER_COMMAND_MS).unref();
