import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect, inject, it } from 'vitest';

// postgres.js 3.4.9 dies of an uncaught TypeError when a write it deferred (setImmediate) runs after
// its socket closed (porsager/postgres#1154, #1208): a worker died so in the soak when its Postgres
// restarted in the middle of its transactions. patches/postgres+3.4.9.patch (applied by npm's
// postinstall, patch-package) guards it: the queries waiting on that connection fail as
// CONNECTION_CLOSED, which the jobs' retries already handle.

// The package's `default` export is cjs/src/index.js: its root is two folders up.
const driverRoot = join(dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');

it('the installed driver carries the guard, in both its module builds', () => {
  for (const file of ['src/connection.js', 'cjs/src/connection.js']) {
    const source = readFileSync(join(driverRoot, file), 'utf8');
    expect(source, file).toMatch(/function nextWrite\(fn\) \{[\s\S]{0,400}if \(!socket\) \{/);
  }
});

it('a transaction whose connection the server ends fails; the process goes on', async () => {
  // A child process, so that an uncaught exception shows as its exit code. Unpatched, it dies in
  // the first rounds: the transaction's ROLLBACK is written after the socket closed.
  const script = `
    import postgres from 'postgres';
    const name = 'driver-patch-' + process.pid;
    const sql = postgres(process.env.URL, { max: 2, onnotice: () => {}, connection: { application_name: name } });
    const admin = postgres(process.env.URL, { max: 1, onnotice: () => {} });
    const codes = [];
    for (let round = 0; round < 10; round++) {
      const transaction = sql.begin(async (tx) => {
        await tx\`select 1\`;
        await tx\`select pg_sleep(5)\`;
      }).then(() => 'committed', (error) => error.code);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await admin\`select pg_terminate_backend(pid) from pg_stat_activity where application_name = \${name}\`;
      codes.push(await transaction);
    }
    await sql.end({ timeout: 1 });
    await admin.end();
    console.log(JSON.stringify(codes));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: process.cwd(),
    env: { ...process.env, URL: inject('pgAdminUrl') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, stderr).toBe(0);
  const codes = JSON.parse(stdout) as string[];
  expect(codes).toHaveLength(10);
  // Each ended by the server: its own error (57P01), the closed or reset connection; none committed.
  for (const result of codes) expect(['57P01', 'CONNECTION_CLOSED', 'ECONNRESET']).toContain(result);
}, 60_000);
