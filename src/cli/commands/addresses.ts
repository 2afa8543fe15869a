import { Command } from 'commander';
import { ADDRESS_FORMAT_LABELS, NFT_CHAINS } from '../../chain/address-formats.ts';
import { formatDuration } from '../../config/duration.ts';
import { ADDRESS_DATASETS } from '../../datasets.ts';
import type { WatchedAddress } from '../../db/stores/watchlist.ts';
import { splitList, valueSource } from '../input-lines.ts';

/** What the actions use, loaded when one runs. */
const load = () => Promise.all([import('./database-command.ts'), import('../../db/stores/watchlist.ts')]);

interface AddFlags {
  file?: string;
  datasets?: string;
  chain?: string;
  protocols?: string;
  nftChain?: string;
  pnl?: boolean;
  maxAge?: string;
  every?: string;
}

export function addressesCommand(): Command {
  const addresses = new Command('addresses').description('manage the address watchlist and its per-address options');
  addresses
    .command('add')
    .description(
      'add wallet addresses of any chain the service serves (SUI, EVM, Solana, Bitcoin, TON), or update the options given for watched ones; all are checked first, nothing is written if one is invalid',
    )
    .argument('[addresses...]')
    .option('--file <path>', 'read addresses from a file, one per line (# comments and blank lines ignored)')
    .option(
      '--datasets <list>',
      `what to refresh: ${ADDRESS_DATASETS.join(', ')} or both, comma-separated (default for new addresses: both)`,
    )
    .option(
      '--chain <chain>',
      'positions: only this chain, free text such as sui or ethereum (a filtered refresh never closes positions); "" for every chain',
    )
    .option('--protocols <list>', 'positions: only these protocols, comma-separated; "" for every protocol')
    .option(
      '--nft-chain <chain>',
      `NFT holdings: one of ${NFT_CHAINS.join(', ')} (default for new addresses: ALL); a chain takes only addresses of its own format`,
    )
    .option('--pnl', 'NFT holdings: include profit and loss')
    .option('--no-pnl', 'NFT holdings: without profit and loss (the default for new addresses)')
    .option(
      '--max-age <duration>',
      'the longest time between two refreshes of each dataset, such as 6h or 2d (default: REFRESH_MAX_AGE, 24h); "" for the default',
    )
    .option(
      '--every <duration>',
      'refresh at this fixed cadence, such as 15m, whether the address changes or not (default: by its change rate); "" to unpin',
    )
    .action(async (args: string[], flags: AddFlags) => {
      const [[{ withDatabase }, { addWatchedAddresses, parseAddressOptions }], { listProtocolIds }] = await Promise.all(
        [load(), import('../../db/stores/protocols.ts')],
      );
      const options = {
        datasets: flags.datasets?.split(','),
        chain: flags.chain,
        protocols: flags.protocols === undefined ? undefined : splitList(flags.protocols),
        nftChain: flags.nftChain,
        includePnl: flags.pnl,
        maxAge: flags.maxAge,
        every: flags.every,
      };
      // Options first, then the addresses (each checked against the chains given) before the database is opened.
      parseAddressOptions(options);
      const source = await valueSource(args, flags.file);
      await withDatabase(async (database) => {
        const result = await addWatchedAddresses(database, source, options);
        console.log(`added ${result.added} address(es), updated ${result.updated}`);
        const protocols = options.protocols;
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
      const source = await valueSource(args, flags.file);
      const [{ withDatabase }, { removeWatchedAddresses }] = await load();
      const removed = await withDatabase((database) => removeWatchedAddresses(database, source));
      console.log(`removed ${removed} address(es)`);
    });
  addresses
    .command('list')
    .description('print the watched addresses: address, format, then what each is refreshed for and on which chains')
    .option('--json', 'print them as a JSON array of objects (README: "JSON output")')
    .action(async (flags: { json?: boolean }) => {
      const [{ withDatabase }, { listWatchedAddresses }] = await load();
      const list = await withDatabase((database) => listWatchedAddresses(database));
      if (flags.json) console.log(JSON.stringify(list, null, 2));
      else for (const watched of list) console.log(listLine(watched));
    });
  return addresses;
}

/** `<address>\t<format>\tdatasets=positions,nfts chain=sui protocols=cetus nft-chain=ALL pnl max-age=6h every=15m` */
function listLine(watched: WatchedAddress): string {
  const options = [
    `datasets=${watched.datasets.join(',')}`,
    watched.chain ? `chain=${watched.chain}` : undefined,
    watched.protocols?.length ? `protocols=${watched.protocols.join(',')}` : undefined,
    `nft-chain=${watched.nftChain}`,
    watched.includePnl ? 'pnl' : undefined,
    watched.maxAgeSeconds !== null ? `max-age=${formatDuration(watched.maxAgeSeconds * 1000)}` : undefined,
    watched.everySeconds !== null ? `every=${formatDuration(watched.everySeconds * 1000)}` : undefined,
  ].filter(Boolean);
  const format = watched.format ? ADDRESS_FORMAT_LABELS[watched.format] : 'unknown';
  return `${watched.address}\t${format}\t${options.join(' ')}`;
}
