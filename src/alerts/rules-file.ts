import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../errors.ts';
import { parseRules, type AlertRules } from './rules.ts';

/** Reads and validates a rules file (YAML or JSON); a missing or invalid file is an InvalidInputError. */
export async function loadRulesFile(path: string): Promise<AlertRules> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new InvalidInputError(
      `cannot read the rules file ${path}: ${code === 'ENOENT' ? 'no such file' : String(error)}`,
    );
  }
  return parseRules(text, path);
}
