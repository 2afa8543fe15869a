import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../errors.ts';
import { parseRules, type AlertRules, type Environment } from './rules.ts';

/**
 * Reads and validates a rules file (YAML or JSON); a missing or invalid file is an InvalidInputError.
 * `env` holds the webhooks' `secret_env` variables (the CLI passes the process's environment).
 */
export async function loadRulesFile(path: string, env: Environment = {}): Promise<AlertRules> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new InvalidInputError(
      `cannot read the rules file ${path}: ${code === 'ENOENT' ? 'no such file' : String(error)}`,
    );
  }
  return parseRules(text, path, env);
}
