import { Command } from 'commander';

export function watchlistCommand(): Command {
  const watchlist = new Command('watchlist').description('the whole watchlist at once, declared in a file');
  watchlist
    .command('apply')
    .description(
      'make the watchlist equal to FILE (YAML or CSV: tokens, and addresses with their options): print what it adds, updates and removes; the file is checked whole first, and nothing changes when an entry is invalid',
    )
    .argument('<file>', 'a .yaml/.yml/.json or .csv file (README, "A declared watchlist")')
    .option('--dry-run', 'print what would change, change nothing')
    .option('--json', 'print the changes as JSON (README: "JSON output"), every one of them')
    .action(async (file: string, flags: { dryRun?: boolean; json?: boolean }) => {
      const [{ readWatchlistFile }, { withDatabase }, { applyWatchlist }, { describeChanges }] = await Promise.all([
        import('../watchlist-file.ts'),
        import('./database-command.ts'),
        import('../../db/stores/watchlist-apply.ts'),
        import('../watchlist-changes.ts'),
      ]);
      const declared = await readWatchlistFile(file);
      const dryRun = flags.dryRun === true;
      const changes = await withDatabase((database) => applyWatchlist(database, declared, { dryRun }));
      if (flags.json) console.log(JSON.stringify({ dryRun, ...changes }, null, 2));
      else for (const line of describeChanges(changes, dryRun)) console.log(line);
    });
  return watchlist;
}
