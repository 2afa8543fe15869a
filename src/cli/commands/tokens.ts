import { Command } from 'commander';
import { valueSource } from '../input-lines.ts';

/** What the actions use, loaded when one runs. */
const load = () => Promise.all([import('./database-command.ts'), import('../../db/stores/watchlist.ts')]);

export function tokensCommand(): Command {
  const tokens = new Command('tokens').description('manage the token watchlist (SUI coin types)');
  tokens
    .command('add')
    .description('add coin types; all are validated first and nothing is written if one is invalid')
    .argument('[coinTypes...]', 'coin types such as 0x2::sui::SUI')
    .option('--file <path>', 'read coin types from a file, one per line (# comments and blank lines ignored)')
    .action(async (args: string[], flags: { file?: string }) => {
      const source = await valueSource(args, flags.file);
      const [{ withDatabase }, { addWatchedTokens }] = await load();
      const result = await withDatabase((database) => addWatchedTokens(database, source));
      console.log(`added ${result.added} token(s), ${result.existing} already watched`);
    });
  tokens
    .command('remove')
    .description('stop watching coin types (their stored prices are kept)')
    .argument('[coinTypes...]')
    .option('--file <path>', 'read coin types from a file, one per line')
    .action(async (args: string[], flags: { file?: string }) => {
      const source = await valueSource(args, flags.file);
      const [{ withDatabase }, { removeWatchedTokens }] = await load();
      const removed = await withDatabase((database) => removeWatchedTokens(database, source));
      console.log(`removed ${removed} token(s)`);
    });
  tokens
    .command('list')
    .description('print the watched coin types')
    .option('--json', 'print them as a JSON array of { coinType, addedAt } (README: "JSON output")')
    .action(async (flags: { json?: boolean }) => {
      const [{ withDatabase }, { listWatchedTokenRows }] = await load();
      const list = await withDatabase((database) => listWatchedTokenRows(database));
      if (flags.json) console.log(JSON.stringify(list, null, 2));
      else for (const { coinType } of list) console.log(coinType);
    });
  return tokens;
}
