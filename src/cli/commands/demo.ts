import { Command } from 'commander';

/**
 * The zero-configuration main job: PostgreSQL and Redis (throwaway local instances when none
 * answers, local-services.ts), the simulated upstream in this process, migrations, a sample
 * watchlist with a day of price history, then `start` with a first tick of every dataset.
 */
export function demoCommand(): Command {
  return new Command('demo')
    .description('run everything against the built-in simulated upstream: migrate, sample watchlist, start')
    .action(async () => (await import('../run-demo.ts')).runDemo());
}
