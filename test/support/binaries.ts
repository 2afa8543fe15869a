import { spawnSync } from 'node:child_process';

/** The programs tests start that `npm ci` does not bring, each with the Debian package that has it. */
export const PACKAGES = {
  'redis-server': 'redis-server',
  'redis-cli': 'redis-tools',
  'redis-sentinel': 'redis-sentinel',
  chromium: 'chromium',
  promtool: 'prometheus',
  openssl: 'openssl',
} as const;

export type Binary = keyof typeof PACKAGES;

/**
 * Throws, naming the packages to install, when a program a test is about to start is missing. The
 * one rule for them: .ci/run installs every one, and elsewhere the test fails with this message; a
 * test never skips for a missing program, which would hide the check it makes.
 */
export function requireBinaries(...names: Binary[]): void {
  const missing = names.filter((name) => spawnSync('/bin/sh', ['-c', `command -v ${name}`]).status !== 0);
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((name) => PACKAGES[name]))].join(' ');
  throw new Error(
    `${missing.join(', ')} not found on PATH: this test starts it. Install it with ` +
      `"apt-get install -y ${packages}" (Debian's packages; .ci/run installs them)`,
  );
}
