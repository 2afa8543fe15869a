import { Command } from 'commander';
import { MAX_COINS_PER_PRICE_REQUEST } from '../../upstream/limits.ts';
import type { ProbeFlags } from '../run-probe.ts';

export function probeCommand(): Command {
  return new Command('probe')
    .description(
      'call each upstream operation once with the configured key and report what would be read, which fields drifted and what would be quarantined; writes nothing (exit 2: key rejected, 1: something would be quarantined or failed)',
    )
    .option('--address <addresses...>', 'addresses for positions and NFT holdings (default: the first watched address)')
    .option(
      '--tokens <coinTypes...>',
      `coin types for one price request, at most ${MAX_COINS_PER_PRICE_REQUEST} (default: the first ${MAX_COINS_PER_PRICE_REQUEST} watched tokens)`,
    )
    .option('--json', 'print the report as JSON')
    .action(async (flags: ProbeFlags) => {
      const { runProbe } = await import('../run-probe.ts');
      await runProbe(flags);
    });
}
