import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { InvalidInputError } from '../errors.ts';
import type { InputValue } from '../db/stores/watchlist.ts';

/**
 * Values from the arguments, then streamed from a file of one per line (blank lines and # comments
 * ignored), each with where it came from. Readable again: the watchlist's transaction may run twice.
 */
export async function valueSource(args: string[], file?: string): Promise<() => AsyncIterable<InputValue>> {
  const values = args.map((value) => value.trim()).filter(Boolean);
  if (file) {
    await access(file).catch((error: Error) => {
      throw new InvalidInputError(`cannot read ${file}: ${error.message}`);
    });
  } else if (values.length === 0) {
    throw nothingGiven();
  }
  return async function* read() {
    for (const value of values) yield { value };
    if (!file) return;
    let given = values.length;
    for await (const value of fileValues(file)) {
      given += 1;
      yield value;
    }
    if (given === 0) throw nothingGiven();
  };
}

async function* fileValues(file: string): AsyncIterable<InputValue> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const line of lines) {
      number += 1;
      const value = line.replace(/#.*/, '').trim();
      if (value) yield { value, where: `${file}:${number}` };
    }
  } catch (error) {
    throw new InvalidInputError(`cannot read ${file}: ${(error as Error).message}`);
  } finally {
    lines.close();
  }
}

function nothingGiven(): InvalidInputError {
  return new InvalidInputError('nothing given: pass values as arguments or with --file PATH');
}

/** A comma-separated list's items, trimmed, empty ones dropped. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
