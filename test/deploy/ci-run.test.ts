import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGES, requireBinaries, type Binary } from '../support/binaries.ts';

const CI_RUN = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8');

describe('the programs tests start: one rule', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });

  it('.ci/run installs every one, from the package test/support/binaries.ts names', () => {
    const listed = /^TEST_PROGRAMS=\(\n([^)]*)\)/m.exec(CI_RUN)?.[1];
    expect(listed).toBeDefined();
    const installed = Object.fromEntries(
      listed!
        .trim()
        .split(/\s+/)
        .map((entry) => entry.split(':')),
    );
    expect(installed).toEqual(PACKAGES);
  });

  it('a test that needs a missing one fails, naming it and the package to install', () => {
    process.env.PATH = '/nonexistent';
    expect(() => requireBinaries('redis-server', 'redis-cli', 'promtool')).toThrow(
      'redis-server, redis-cli, promtool not found on PATH: this test starts it. Install it with ' +
        '"apt-get install -y redis-server redis-tools prometheus"',
    );
  });

  it('says nothing when they are installed', () => {
    // Here as on CI, every one is installed (.ci/run).
    expect(() => requireBinaries(...(Object.keys(PACKAGES) as Binary[]))).not.toThrow();
  });
});
