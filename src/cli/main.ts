import { Command, CommanderError } from 'commander';
import { addressesCommand } from './commands/addresses.js';
import { alertsCommand } from './commands/alerts.js';
import { backfillCommand } from './commands/backfill.js';
import { demoCommand } from './commands/demo.js';
import { migrateCommand } from './commands/migrate.js';
import { planCommand } from './commands/plan.js';
import { probeCommand } from './commands/probe.js';
import { rawCommand } from './commands/raw.js';
import { reportCommand } from './commands/report.js';
import { runOnceCommand } from './commands/run-once.js';
import { schedulerCommand, startCommand, workerCommand } from './commands/services.js';
import { simulateCommand } from './commands/simulate.js';
import { statusCommand } from './commands/status.js';
import { tokensCommand } from './commands/tokens.js';
import { tuneProcess } from './process-tuning.js';
import { describeFailure, loadDotEnv } from './runtime.js';
import { formatFatalError } from '../runtime/scrub.js';
import { secretValues } from '../config/secrets.js';

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
