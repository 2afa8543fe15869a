import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceFiles, upwardImports } from '../support/source-imports.ts';

/**
 * The layers of src/, lowest first: a file may import its own layer and the layers before it,
 * never one after it. `errors` and `datasets` are the files src/errors.ts and src/datasets.ts.
 */
const LAYERS = [
  'errors',
  'datasets',
  'chain',
  'config',
  'runtime',
  'db',
  'upstream',
  'normalize',
  'refresh',
  'queue',
  'worker',
  'scheduler',
  'alerts',
  'ops',
  'simulator',
  'cli',
] as const;

const SRC = join(import.meta.dirname, '../../src');

describe('layering of src/', () => {
  it('has no import from a lower layer to a higher one', () => {
    expect(upwardImports(SRC, LAYERS)).toEqual([]);
  });

  describe('the check itself', () => {
    const root = mkdtempSync(join(tmpdir(), 'chaintap-layering-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };

    it('reports an upward import with its file and line, and an unplaced folder', () => {
      write('errors.ts', 'export class E extends Error {}\n');
      write('db/store.ts', "import { E } from '../errors.js';\n\nimport type { Logger } from '../ops/logger.js';\n");
      write('ops/logger.ts', "import { store } from '../db/store.js';\n");
      write('extra/thing.ts', "export const x = await import('../ops/logger.js');\n");
      expect(upwardImports(root, ['errors', 'db', 'ops'])).toEqual([
        "extra/thing.ts: layer 'extra' is not in the layer order",
        "db/store.ts:3 imports ops/logger.js ('db' may not import 'ops')",
      ]);
    });
  });
});

describe('process-wide state in src/', () => {
  const outsideEntryPoints = sourceFiles(SRC).filter((file) => !/^(cli|config)\//.test(file));
  const offending = (pattern: RegExp) =>
    outsideEntryPoints.flatMap((file) =>
      readFileSync(join(SRC, file), 'utf8')
        .split('\n')
        .flatMap((text, index) => (pattern.test(text) ? [`${file}:${index + 1}: ${text.trim()}`] : [])),
    );

  it('reads process.env only in src/config and src/cli', () => {
    expect(offending(/process\.env\b/)).toEqual([]);
  });

  it('changes process-wide settings (V8 flags, thread priorities, signal handlers, exit) only in src/cli', () => {
    expect(offending(/setFlagsFromString|\bsetPriority\b|process\.(on|once|exit|chdir|umask)\(/)).toEqual([]);
  });
});
