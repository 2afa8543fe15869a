import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { checkAddressChains, parseAddress } from '../chain/address.ts';
import type { NftChain } from '../chain/address-formats.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import { parseAddressOptions } from '../db/stores/watchlist.ts';
import type { DeclaredAddress, DeclaredWatchlist } from '../db/stores/watchlist-apply.ts';
import { InvalidInputError } from '../errors.ts';
import { booleanWord } from '../config/options.ts';
import { parseCsvRecords } from './csv-records.ts';

/**
 * A declared watchlist (`chaintap watchlist apply FILE`), YAML (or JSON) or CSV by the file's
 * extension. Every entry is checked as `tokens add` and `addresses add` check theirs; an address's
 * options not given take the defaults of a new address. Every problem is named (up to
 * PROBLEMS_SHOWN), and a file with one is refused whole.
 *
 * YAML:  tokens: [coin types]
 *        addresses: [an address, or { address, datasets, chain, protocols, nft_chain, pnl, max_age, every }]
 * CSV:   a header with kind and value, and any of datasets, chain, protocols, nft_chain, pnl, max_age,
 *        every; kind is
 *        token or address; a list is comma-separated (quoted) or semicolon-separated; read as
 *        spreadsheets export it (csv-records.ts).
 */
const ADDRESS_FIELDS = ['address', 'datasets', 'chain', 'protocols', 'nft_chain', 'pnl', 'max_age', 'every'] as const;
const CSV_COLUMNS = ['kind', 'value', ...ADDRESS_FIELDS.slice(1)];
const PROBLEMS_SHOWN = 10;

/** An address entry as written, before it is checked. */
type AddressEntry = Partial<Record<(typeof ADDRESS_FIELDS)[number], unknown>>;

export async function readWatchlistFile(path: string): Promise<DeclaredWatchlist> {
  const text = await readFile(path, 'utf8').catch((error: Error) => {
    throw new InvalidInputError(`cannot read ${path}: ${error.message}`);
  });
  return extname(path).toLowerCase() === '.csv' ? parseCsvWatchlist(text, path) : parseYamlWatchlist(text, path);
}

/** The entries of a YAML (or JSON) watchlist. */
export function parseYamlWatchlist(text: string, source: string): DeclaredWatchlist {
  let document: unknown;
  try {
    // Every scalar as text: YAML would read 0x… as a hexadecimal number, and an address must stay as written.
    document = parseYaml(text, { schema: 'failsafe' });
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
    throw new InvalidInputError(`invalid watchlist file ${source}${where}: ${(error as Error).message.split('\n')[0]}`);
  }
  const builder = new WatchlistBuilder();
  if (!isObject(document) || Object.keys(document).some((key) => key !== 'tokens' && key !== 'addresses')) {
    throw new InvalidInputError(`invalid watchlist file ${source}: expected "tokens" and "addresses" lists`);
  }
  for (const [name, list] of Object.entries(document)) {
    if (list !== '' && !Array.isArray(list)) builder.problem(name, 'expected a list');
  }
  asList(document.tokens).forEach((token, i) => builder.token(`tokens[${i}]`, token));
  asList(document.addresses).forEach((entry, i) => {
    const where = `addresses[${i}]`;
    if (typeof entry === 'string') builder.address(where, { address: entry });
    else if (isObject(entry)) {
      const unknown = Object.keys(entry).filter((key) => !(ADDRESS_FIELDS as readonly string[]).includes(key));
      if (unknown.length > 0) builder.problem(where, `unknown field(s) ${unknown.join(', ')}`);
      else builder.address(where, entry);
    } else builder.problem(where, 'expected an address or an object with "address"');
  });
  return builder.result(source);
}

/** The records of a CSV watchlist. */
export function parseCsvWatchlist(text: string, source: string): DeclaredWatchlist {
  const { header, records } = parseCsvRecords(text, source);
  const unknown = header.filter((column) => !CSV_COLUMNS.includes(column));
  if (!header.includes('kind') || !header.includes('value') || unknown.length > 0) {
    throw new InvalidInputError(
      `invalid watchlist file ${source}: the header needs kind and value, and may have ${CSV_COLUMNS.slice(2).join(', ')}${unknown.length ? ` (not ${unknown.join(', ')})` : ''}`,
    );
  }
  const builder = new WatchlistBuilder();
  for (const { line, fields } of records) {
    const where = `line ${line}`;
    const cell = (column: string) =>
      fields[column] === undefined || fields[column] === '' ? undefined : fields[column];
    const kind = cell('kind');
    if (kind === 'token') builder.token(where, cell('value'));
    else if (kind === 'address') {
      const entry: AddressEntry = { address: cell('value') };
      for (const field of ADDRESS_FIELDS.slice(1)) entry[field] = cell(field);
      builder.address(where, entry);
    } else builder.problem(where, `kind "${kind ?? ''}": expected token or address`);
  }
  return builder.result(source);
}

/** Checks entries one by one, keeping the good ones and naming the bad ones. */
class WatchlistBuilder {
  private readonly tokens = new Set<string>();
  private readonly addresses = new Map<string, { entry: DeclaredAddress; where: string }>();
  private readonly problems: string[] = [];

  problem(where: string, message: string): void {
    this.problems.push(`${where}: ${message}`);
  }

  token(where: string, value: unknown): void {
    this.checked(where, () => {
      if (typeof value !== 'string') throw new InvalidInputError('expected a coin type');
      this.tokens.add(normalizeCoinType(value));
    });
  }

  address(where: string, entry: AddressEntry): void {
    this.checked(where, () => {
      if (typeof entry.address !== 'string') throw new InvalidInputError('expected "address"');
      const options = parseAddressOptions({
        datasets: entry.datasets === undefined ? undefined : listOf(entry.datasets, 'datasets'),
        chain: entry.chain === undefined || entry.chain === '' ? null : textOf(entry.chain, 'chain'),
        protocols: entry.protocols === undefined ? [] : listOf(entry.protocols, 'protocols'),
        nftChain: entry.nft_chain === undefined ? undefined : textOf(entry.nft_chain, 'nft_chain'),
        includePnl: entry.pnl === undefined || entry.pnl === '' ? undefined : booleanOf(entry.pnl),
        maxAge: entry.max_age === undefined ? null : textOf(entry.max_age, 'max_age'),
        every: entry.every === undefined ? null : textOf(entry.every, 'every'),
      });
      const parsed = parseAddress(entry.address);
      checkAddressChains(parsed, { positionsChain: options.chain, nftChain: options.nft_chain });
      const declared: DeclaredAddress = {
        address: parsed.address,
        datasets: options.datasets ?? ['positions', 'nfts'],
        chain: options.chain ?? null,
        protocols: options.protocols ?? null,
        nftChain: options.nft_chain ?? ('ALL' satisfies NftChain),
        includePnl: options.include_pnl ?? false,
        maxAgeSeconds: options.max_age_s ?? null,
        everySeconds: options.every_s ?? null,
      };
      const earlier = this.addresses.get(declared.address);
      if (earlier && JSON.stringify(earlier.entry) !== JSON.stringify(declared)) {
        throw new InvalidInputError(`${declared.address} again, with other options than at ${earlier.where}`);
      }
      this.addresses.set(declared.address, { entry: declared, where });
    });
  }

  result(source: string): DeclaredWatchlist {
    const { problems } = this;
    if (problems.length > 0) {
      const more = problems.length > PROBLEMS_SHOWN ? `; and ${problems.length - PROBLEMS_SHOWN} more` : '';
      throw new InvalidInputError(
        `invalid watchlist file ${source}, nothing changed: ${problems.slice(0, PROBLEMS_SHOWN).join('; ')}${more}`,
      );
    }
    return { tokens: [...this.tokens], addresses: [...this.addresses.values()].map(({ entry }) => entry) };
  }

  private checked(where: string, check: () => void): void {
    try {
      check();
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      this.problem(where, error.message);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function textOf(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new InvalidInputError(`field "${field}": expected text`);
  return value;
}

/** A list written as a list, or as text separated by commas or semicolons. */
function listOf(value: unknown, field: string): string[] {
  const items = typeof value === 'string' ? value.split(/[,;]/) : Array.isArray(value) ? value : undefined;
  if (!items || items.some((item) => typeof item !== 'string'))
    throw new InvalidInputError(`field "${field}": expected a list`);
  return (items as string[]).map((item) => item.trim()).filter(Boolean);
}

function booleanOf(value: unknown): boolean {
  const parsed = booleanWord.safeParse(typeof value === 'string' ? value.trim().toLowerCase() : value);
  if (!parsed.success) throw new InvalidInputError('field "pnl": expected true or false');
  return parsed.data;
}
