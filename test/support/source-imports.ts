import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One relative import of a source file: where it is written and the file it names. */
export interface SourceImport {
  file: string;
  line: number;
  target: string;
}

/** Every .ts/.cjs/.mjs file under `root`, as paths relative to it (forward slashes). */
export function sourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|cjs|mjs)$/.test(entry.name)) found.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return found.sort();
}

// Static imports and re-exports (`from '…'`), side-effect imports, dynamic import() and require().
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The relative imports of every source file under `root`, resolved to paths relative to `root`. */
export function relativeImports(root: string): SourceImport[] {
  const imports: SourceImport[] = [];
  for (const file of sourceFiles(root)) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((text, index) => {
      for (const match of text.matchAll(SPECIFIER)) {
        const absolute = resolve(root, dirname(file), match[1]!);
        imports.push({ file, line: index + 1, target: relative(root, absolute).split(sep).join('/') });
      }
    });
  }
  return imports;
}

/** The layer of a path under src/: its top folder, or its file name without extension at the top. */
export function layerOf(path: string): string {
  const [first, ...rest] = path.split('/');
  return rest.length > 0 ? first! : first!.replace(/\.[^.]+$/, '');
}

/**
 * Imports that point up: from a layer to a layer later in `layers`. Files in a layer not listed are
 * reported too, so that a new folder has to be placed in the order.
 */
export function upwardImports(root: string, layers: readonly string[]): string[] {
  const rank = new Map(layers.map((layer, index) => [layer, index]));
  const problems: string[] = [];
  for (const file of sourceFiles(root)) {
    if (!rank.has(layerOf(file))) problems.push(`${file}: layer '${layerOf(file)}' is not in the layer order`);
  }
  for (const { file, line, target } of relativeImports(root)) {
    const from = layerOf(file);
    const to = layerOf(target);
    if (from === to || !rank.has(from) || !rank.has(to)) continue;
    if (rank.get(to)! > rank.get(from)!)
      problems.push(`${file}:${line} imports ${target} ('${from}' may not import '${to}')`);
  }
  return problems;
}
