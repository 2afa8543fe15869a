import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../errors.ts';

/** Values from the arguments plus a file of one value per line (blank lines and # comments ignored). */
export async function collectValues(args: string[], file?: string): Promise<string[]> {
  const values = args.map((value) => value.trim()).filter(Boolean);
  if (file) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new InvalidInputError(`cannot read ${file}: ${(error as Error).message}`);
    }
    for (const line of text.split(/\r?\n/)) {
      const value = line.replace(/#.*/, '').trim();
      if (value) values.push(value);
    }
  }
  if (values.length === 0) throw new InvalidInputError('nothing given: pass values as arguments or with --file PATH');
  return values;
}
