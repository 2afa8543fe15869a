import { Command } from 'commander';
import type { DeclaredAddress, WatchlistChanges } from '../../db/stores/watchlist-apply.ts';
import { addressFormatLabel, describeAddressWatch } from '../../ops/address-watch.ts';

/** Lines listed per kind of change; the rest are counted. */
const CHANGES_SHOWN = 100;

export function watchlistCommand(): Command {
  const watchlist = new Command('watchlist').description('the whole watchlist at once, declared in a file');
  watchlist
    .command('apply')
    .description(
      'make the watchlist equal to FILE (YAML or CSV: tokens, and addresses with their options): print what it adds, updates and removes; the file is checked whole first, and nothing changes when an entry is invalid',
    )
    .argument('<file>', 'a .yaml/.yml/.json or .csv file (README, "A declared watchlist")')
    .option('--dry-run', 'print what would change, change nothing')
    .action(async (file: string, flags: { dryRun?: boolean }) => {
      const [{ readWatchlistFile }, { withDatabase }, { applyWatchlist }] = await Promise.all([
        import('../watchlist-file.ts'),
        import('./database-command.ts'),
        import('../../db/stores/watchlist-apply.ts'),
      ]);
      const declared = await readWatchlistFile(file);
      const dryRun = flags.dryRun === true;
      const changes = await withDatabase((database) => applyWatchlist(database, declared, { dryRun }));
      for (const line of describeChanges(changes, dryRun)) console.log(line);
    });
  return watchlist;
}

function watchText(watched: DeclaredAddress): string {
  return `${addressFormatLabel(watched.address)}: ${describeAddressWatch(watched)}`;
}

/** The first CHANGES_SHOWN lines of a kind of change, then how many more. */
function shown<T>(items: T[], line: (item: T) => string): string[] {
  const lines = items.slice(0, CHANGES_SHOWN).map(line);
  if (items.length > CHANGES_SHOWN) lines.push(`  … and ${items.length - CHANGES_SHOWN} more`);
  return lines;
}

/** "tokens: 2 added, 1 removed, 10 unchanged", each change on a line (+ added, ~ updated, - removed). */
function describeChanges(changes: WatchlistChanges, dryRun: boolean): string[] {
  const { tokens, addresses } = changes;
  const verb = (done: string, would: string) => (dryRun ? would : done);
  return [
    `tokens: ${tokens.added.length} ${verb('added', 'to add')}, ${tokens.removed.length} ${verb('removed', 'to remove')}, ${tokens.unchanged} unchanged`,
    ...shown(tokens.added, (token) => `  + ${token}`),
    ...shown(tokens.removed, (token) => `  - ${token}`),
    `addresses: ${addresses.added.length} ${verb('added', 'to add')}, ${addresses.updated.length} ${verb('updated', 'to update')}, ${addresses.removed.length} ${verb('removed', 'to remove')}, ${addresses.unchanged} unchanged`,
    ...shown(addresses.added, (watched) => `  + ${watched.address} ${watchText(watched)}`),
    ...shown(
      addresses.updated,
      ({ before, after }) => `  ~ ${after.address} ${watchText(after)} (was: ${describeAddressWatch(before)})`,
    ),
    ...shown(addresses.removed, (address) => `  - ${address}`),
    ...(dryRun ? ['dry run: nothing changed'] : []),
  ];
}
