import { Command, CommanderError } from 'commander';
import { ChaintapError } from '../errors.js';
import { addressesCommand } from './commands/addresses.js';
import { backfillCommand } from './commands/backfill.js';
import { demoCommand } from './commands/demo.js';
import { migrateCommand } from './commands/migrate.js';
import { planCommand } from './commands/plan.js';
import { probeCommand } from './commands/probe.js';
import { rawCommand } from './commands/raw.js';
import { runOnceCommand } from './commands/run-once.js';
import { schedulerCommand, startCommand, workerCommand } from './commands/services.js';
import { simulateCommand } from './commands/simulate.js';
import { statusCommand } from './commands/status.js';
import { tokensCommand } from './commands/tokens.js';
import { tuneProcess } from './process-tuning.js';
import { loadDotEnv } from './runtime.js';

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
  rawCommand(),
  probeCommand(),
  simulateCommand(process.env),
]) {
  program.addCommand(command);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof ChaintapError) {
    // Expected failures (bad input, configuration): the message alone, no stack.
    console.error(`error: ${error.message}`);
    process.exitCode = 1;
  } else {
    console.error(error);
    process.exitCode = 1;
  }
}

// The command has finished and closed everything it opened. A handle left behind must not keep the
// process alive: BullMQ workers closed by force while Redis is down leave their lock-renewal and
// reconnect timers running. Unreferenced, this timer fires only when something else still holds the
// process open.
setTimeout(() => process.exit(), EXIT_AFTER_COMMAND_MS).unref();
