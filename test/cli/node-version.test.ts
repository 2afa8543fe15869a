import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.ts';

// A person with an older Node (20 is still the default of many distributions) is told what to do
// in one line, by `npm ci` and by the bin alike. The machine's own Node (/usr/bin/node, 20 here and
// in CI) runs them; a machine whose Node is new enough gets an older one simulated instead.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MACHINE_NODE = '/usr/bin/node';

function olderNode(): { node: string; version: string; env: Record<string, string> } {
  if (existsSync(MACHINE_NODE)) {
    const version = spawnSync(MACHINE_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(version.split('.')[0]) < 24) return { node: MACHINE_NODE, version, env: {} };
  }
  const preload = fileURLToPath(new URL('../support/older-node.mjs', import.meta.url));
  return { node: process.execPath, version: '20.20.2', env: { NODE_OPTIONS: `--import=${preload}` } };
}

const older = olderNode();
const env = { ...older.env, HOME: process.env.HOME ?? '', PATH: `${dirname(older.node)}:${process.env.PATH ?? ''}` };

describe('first contact on an older Node', () => {
  it('the bin says in one line which Node it needs, which one runs and how to get it, and exits 1', () => {
    const result = spawnSync(older.node, [CLI, '--version'], { env, encoding: 'utf8', timeout: 30_000 });
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `chaintap needs Node.js 24 or newer, and this is Node.js ${older.version} (${older.node}): ` +
        'install Node.js 24 (`nvm install 24`, or https://nodejs.org/en/download) and run it again.\n',
    );
    expect(result.status).toBe(1);
  });

  describe('npm ci', () => {
    // package.json, its lock file and .npmrc alone: a dry run reads the lock file and installs nothing.
    const folder = mkdtempSync(join(tmpdir(), 'chaintap-engines-'));
    afterAll(() => rmSync(folder, { recursive: true, force: true }));
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      copyFileSync(join(ROOT, file), join(folder, file));

    it("stops before installing anything, with npm's own message naming the engine", () => {
      const result = spawnSync('npm', ['ci', '--dry-run', '--offline', '--no-audit', '--no-fund'], {
        cwd: folder,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.stderr).toContain('EBADENGINE');
      expect(result.stderr).toContain('Required: {"node":">=24"}');
      expect(result.stderr).toContain(`Actual:   {"node":"v${older.version}"`);
      expect(result.stdout).not.toMatch(/^add /m);
      expect(result.status).not.toBe(0);
    });
  });

  it('the bin, package.json engines and .nvmrc name the same major version', () => {
    const bin = /const NODE_MAJOR = (\d+);/.exec(readFileSync(CLI, 'utf8'))?.[1];
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    expect(bin).toBe('24');
    expect(engines).toBe(`>=${bin}`);
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8')).toBe(`${bin}\n`);
  });
});
