import { Command } from 'commander';
import type { RawResponseFilter } from '../../db/stores/raw-responses.ts';
import { InvalidInputError } from '../../errors.ts';
import { parseTime } from '../parse-time.ts';

/** What the actions use, loaded when one runs. */
const load = () => Promise.all([import('./database-command.ts'), import('../../db/stores/raw-responses.ts')]);

function parseIds(values: string[]): number[] {
  return values.map((value) => {
    if (!/^\d+$/.test(value))
      throw new InvalidInputError(`invalid id "${value}": expected a raw_responses id (a whole number)`);
    return Number(value);
  });
}

function parseLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidInputError(`invalid --limit "${value}": expected a whole number of 1 or more`);
  return Number(value);
}

/** Stored bodies are compressed: this is how an operator reads them. */
export function rawCommand(): Command {
  const raw = new Command('raw').description('read stored upstream responses (raw_responses), bodies as received');
  raw
    .command('list')
    .description(
      'one line per stored response, newest first: id, received_at, dataset, target, tick, HTTP status, endpoint, body size',
    )
    .option('--dataset <name>', 'prices, positions, nfts, backfill, protocols')
    .option('--target <target>', 'an address or a price batch')
    .option('--tick <iso>', 'the tick the job stood for')
    .option('--limit <n>', 'at most this many', '20')
    .action(async (flags: { dataset?: string; target?: string; tick?: string; limit: string }) => {
      const filter: RawResponseFilter = {
        dataset: flags.dataset,
        target: flags.target,
        tick: flags.tick === undefined ? undefined : parseTime('--tick', flags.tick),
        limit: parseLimit(flags.limit),
      };
      const [{ withDatabase }, { readRawResponses }] = await load();
      const rows = await withDatabase((database) => readRawResponses(database, filter));
      for (const row of rows) {
        console.log(
          [
            row.id,
            row.receivedAt.toISOString(),
            row.dataset,
            row.target,
            row.tick.toISOString(),
            row.httpStatus,
            row.endpoint,
            `${Buffer.byteLength(row.body)} B`,
          ].join('\t'),
        );
      }
    });
  raw
    .command('show')
    .description('print the bodies of the given responses exactly as received, one after the other')
    .argument('<ids...>', 'raw_responses ids (see `chaintap raw list`)')
    .action(async (values: string[]) => {
      const ids = parseIds(values);
      const [{ withDatabase }, { readRawResponses }] = await load();
      const rows = await withDatabase((database) => readRawResponses(database, { ids, limit: ids.length }));
      const missing = ids.filter((id) => !rows.some((row) => row.id === id));
      if (missing.length > 0)
        throw new InvalidInputError(
          `no stored response with id ${missing.join(', ')} (pruned after RAW_RETENTION_DAYS, or never stored)`,
        );
      for (const id of ids) process.stdout.write(`${rows.find((row) => row.id === id)!.body}\n`);
    });
  return raw;
}
