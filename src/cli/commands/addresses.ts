import { Command } from 'commander';
import { normalizePositionsAddress, parseWatchedNftChain } from '../../chain/address.ts';
import { InvalidInputError } from '../../errors.ts';
import { collectValues } from '../input-lines.ts';

/** What the actions use, loaded when one runs. */
const load = () => Promise.all([import('./database-command.ts'), import('../../db/stores/watchlist.ts')]);

interface AddFlags {
  file?: string;
  chain?: string;
  protocols?: string;
  nftChain?: string;
  pnl?: boolean;
}

export function addressesCommand(): Command {
  const addresses = new Command('addresses').description('manage the address watchlist and its per-address options');
  addresses
    .command('add')
    .description(
      'add SUI addresses (0x and 64 hex digits: positions are SUI-only), or update the options given for watched ones; all are validated first, nothing is written if one is invalid',
    )
    .argument('[addresses...]')
    .option('--file <path>', 'read addresses from a file, one per line')
    .option('--chain <chain>', 'positions: only this chain (positions are then never closed by absence)')
    .option('--protocols <list>', 'positions: only these protocols, comma-separated')
    .option(
      '--nft-chain <chain>',
      'NFT holdings: SUI or ALL (the default for new addresses); watched addresses are SUI addresses, and the other chains take other formats',
    )
    .option('--pnl', 'NFT holdings: include profit and loss')
    .option('--no-pnl', 'NFT holdings: without profit and loss (the default for new addresses)')
    .action(async (args: string[], flags: AddFlags) => {
      const list = watchableAddresses(await collectValues(args, flags.file), flags.nftChain);
      const protocols = flags.protocols
        ?.split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const [{ withDatabase }, { addWatchedAddresses }, { listProtocolIds }] = await Promise.all([
        ...(await load()),
        import('../../db/stores/protocols.ts'),
      ]);
      await withDatabase(async (database) => {
        const result = await addWatchedAddresses(database, list, {
          chain: flags.chain,
          protocols,
          nftChain: flags.nftChain,
          includePnl: flags.pnl,
        });
        console.log(`added ${result.added} address(es), updated ${result.updated}`);
        if (protocols?.length) {
          const known = new Set(await listProtocolIds(database));
          const unknown = protocols.filter((p) => !known.has(p));
          if (known.size === 0) {
            console.warn(
              'warning: the protocol list has not been synced yet (the daily maintenance job does it): protocols not checked',
            );
          } else if (unknown.length) {
            console.warn(
              `warning: unknown protocol(s) ${unknown.join(', ')}: the synced protocol list does not have them`,
            );
          }
        }
      });
    });
  addresses
    .command('remove')
    .description('stop watching addresses (their history is kept)')
    .argument('[addresses...]')
    .option('--file <path>', 'read addresses from a file, one per line')
    .action(async (args: string[], flags: { file?: string }) => {
      const list = await collectValues(args, flags.file);
      const [{ withDatabase }, { removeWatchedAddresses }] = await load();
      const removed = await withDatabase((database) => removeWatchedAddresses(database, list));
      console.log(`removed ${removed} address(es)`);
    });
  addresses
    .command('list')
    .description('print the watched addresses with their options')
    .option('--json', 'print them as a JSON array of objects (README: "JSON output")')
    .action(async (flags: { json?: boolean }) => {
      const [{ withDatabase }, { listWatchedAddresses }] = await load();
      const list = await withDatabase((database) => listWatchedAddresses(database));
      if (flags.json) {
        console.log(JSON.stringify(list, null, 2));
        return;
      }
      for (const a of list) {
        const options = [
          a.chain ? `chain=${a.chain}` : undefined,
          a.protocols?.length ? `protocols=${a.protocols.join(',')}` : undefined,
          `nft-chain=${a.nftChain}`,
          a.includePnl ? 'pnl' : undefined,
        ].filter(Boolean);
        console.log(`${a.address}\t${options.join(' ')}`);
      }
    });
  return addresses;
}

/** At most this many bad values are named in the error, so that it stays one screen. */
const PROBLEMS_SHOWN = 5;

/**
 * Every address checked against what the datasets can query (src/chain/address.ts) before the
 * database is opened: each watched address is queried for positions, which are SUI-only, and for NFT
 * holdings on its NFT chain, which must then take SUI addresses. (Removing takes any format, so that
 * an address watched before this check can still go.)
 */
function watchableAddresses(inputs: string[], nftChain: string | undefined): string[] {
  if (nftChain !== undefined) parseWatchedNftChain(nftChain);
  const problems: string[] = [];
  for (const input of inputs) {
    try {
      normalizePositionsAddress(input);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) {
    const more = problems.length > PROBLEMS_SHOWN ? `; and ${problems.length - PROBLEMS_SHOWN} more` : '';
    throw new InvalidInputError(`nothing written: ${problems.slice(0, PROBLEMS_SHOWN).join('; ')}${more}`);
  }
  return inputs;
}
