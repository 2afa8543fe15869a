import { Command } from 'commander';
import type { RawResponseFilter } from '../../db/stores/raw-responses.ts';
import { InvalidInputError } from '../../errors.ts';
import { parseBigintId, parseCount } from '../parse-integer.ts';
import { parseTime } from '../../scheduler/parse-time.ts';

/** What the actions use, loaded when one runs. */
const load = () => Promise.all([import('./database-command.ts'), import('../../db/stores/raw-responses.ts')]);

/** The bodies are readable from SQL too (raw_responses.body); this is how an operator reads them from a shell. */
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
    .option('--json', 'print the responses as a JSON array (README: "JSON output")')
    .action(async (flags: { dataset?: string; target?: string; tick?: string; limit: string; json?: boolean }) => {
      const filter: RawResponseFilter = {
        dataset: flags.dataset,
        target: flags.target,
        tick: flags.tick === undefined ? undefined : parseTime('--tick', flags.tick),
        limit: parseCount('--limit', flags.limit),
      };
      const [{ withDatabase }, { readRawResponses }] = await load();
      const rows = (await withDatabase((database) => readRawResponses(database, filter))).map(({ body, ...row }) => ({
        ...row,
        bodyBytes: Buffer.byteLength(body),
      }));
      if (flags.json) {
        console.log(JSON.stringify(rows, null, 2));
        return;
      }
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
            `${row.bodyBytes} B`,
          ].join('\t'),
        );
      }
    });
  raw
    .command('show')
    .description('print the bodies of the given responses exactly as received, one after the other')
    .argument('<ids...>', 'raw_responses ids (see `chaintap raw list`)')
    .action(async (values: string[]) => {
      const ids = values.map((value) => parseBigintId('raw_responses id', value));
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
