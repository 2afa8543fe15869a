import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../errors.ts';
import { parseRules, type AlertRules, type Environment } from './rules.ts';

/**
 * Reads and validates a rules file (YAML or JSON); a missing or invalid file is an InvalidInputError.
 * `env` holds the webhooks' `secret_env` variables (the CLI passes the process's environment).
 */
export async function loadRulesFile(path: string, env: Environment = {}): Promise<AlertRules> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === 'ENOENT' ? 'no such file' : String(error);
    throw new InvalidInputError(`cannot read the rules file ${path}: ${reason}`);
  });
  return parseRules(text, path, env);
}
