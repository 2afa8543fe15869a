import { Command } from 'commander';

export function demoCommand(): Command {
  return new Command('demo')
    .description('run everything against the built-in simulated upstream: migrate, sample watchlist, start')
    .action(async () => (await import('../run-demo.ts')).runDemo());
}
