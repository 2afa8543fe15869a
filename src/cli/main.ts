import { Command, CommanderError } from 'commander';
import { ChaintapError } from '../errors.js';
import { addressesCommand } from './commands/addresses.js';
import { backfillCommand } from './commands/backfill.js';
import { demoCommand } from './commands/demo.js';
import { migrateCommand } from './commands/migrate.js';
import { rawCommand } from './commands/raw.js';
import { runOnceCommand } from './commands/run-once.js';
import { schedulerCommand, startCommand, workerCommand } from './commands/services.js';
import { simulateCommand } from './commands/simulate.js';
import { statusCommand } from './commands/status.js';
import { tokensCommand } from './commands/tokens.js';
import { loadDotEnv } from './runtime.js';

loadDotEnv();

const program = new Command('chaintap')
  .description('Ingests SUI token prices, DeFi positions and NFT holdings from a blockchain data service into Postgres')
  .showHelpAfterError()
  .exitOverride();

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
  rawCommand(),
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
