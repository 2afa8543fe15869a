import { Command } from 'commander';
import { addWatchedTokens, listWatchedTokens, removeWatchedTokens } from '../../db/index.ts';
import { valueSource } from '../input-lines.ts';
import { withDatabase } from './database-command.ts';

export function tokensCommand(): Command {
  const tokens = new Command('tokens').description('manage the token watchlist (SUI coin types)');
  tokens
    .command('add')
    .description('add coin types; all are validated first and nothing is written if one is invalid')
    .argument('[coinTypes...]', 'coin types such as 0x2::sui::SUI')
    .option('--file <path>', 'read coin types from a file, one per line (# comments and blank lines ignored)')
    .action(async (args: string[], flags: { file?: string }) => {
      const source = await valueSource(args, flags.file);
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
      const removed = await withDatabase((database) => removeWatchedTokens(database, source));
      console.log(`removed ${removed} token(s)`);
    });
  tokens
    .command('list')
    .description('print the watched coin types')
    .action(async () => {
      const list = await withDatabase((database) => listWatchedTokens(database));
      for (const coinType of list) console.log(coinType);
    });
  return tokens;
}
