import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// postgres.js 3.4.9 ends the process, or misreports, when Postgres ends a connection at the wrong
// moment. patches/postgres+3.4.9.patch (applied by npm's postinstall, patch-package) guards:
// - a write it deferred (setImmediate) that runs after its socket closed: an uncaught TypeError
//   (porsager/postgres#1154, #1208); a worker died so in the soak when its Postgres restarted;
// - the array types it fetches as a new connection's first query: their promise is dropped, so a
//   failure is an unhandled rejection (#1192, #1205);
// - the error of a backend the server ended was kept, and failed the first query of the connection
//   made next (#1223), as if that one had been ended too.
// Each scenario runs in a child process, so that an uncaught exception shows as its exit code.

// The package's `default` export is cjs/src/index.js: its root is two folders up.
const driverRoot = join(dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await database?.drop();
});

/** Runs an ES module script with URL set to this file's database; resolves its exit code and output. */
async function runScript(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: process.cwd(),
    env: { ...process.env, URL: database.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

// Polls a query of the script's `admin` connection until it returns a row (the driver is then where
// the scenario needs it, however slow the machine).
const untilRow = `
  async function untilRow(query) {
    for (;;) {
      const rows = await query();
      if (rows.length > 0) return rows;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
`;

it('the installed driver carries the guards, in both its module builds', () => {
  for (const file of ['src/connection.js', 'cjs/src/connection.js']) {
    const source = readFileSync(join(driverRoot, file), 'utf8');
    expect(source, file).toMatch(/function nextWrite\(fn\) \{[\s\S]{0,400}if \(!socket\) \{/);
    expect(source, file).toContain('return fetchArrayTypes().catch(noop)');
    expect(source, file).toMatch(
      /async function closed\(hadError\) \{[\s\S]{0,1200}forgetBackend\(\)\n\s+return reconnect\(\)[\s\S]{0,200}forgetBackend\(\)/,
    );
  }
});

it('a transaction whose connection the server ends fails; the process goes on', async () => {
  // Unpatched, it dies in the first rounds: the transaction's ROLLBACK is written after the socket
  // closed. The backend is ended while it sleeps in the transaction, the moment of the fault.
  const { code, stdout, stderr } = await runScript(`
    import postgres from 'postgres';
    ${untilRow}
    const name = 'driver-patch-' + process.pid;
    const sql = postgres(process.env.URL, { max: 2, onnotice: () => {}, connection: { application_name: name } });
    const admin = postgres(process.env.URL, { max: 1, onnotice: () => {} });
    const codes = [];
    for (let round = 0; round < 10; round++) {
      const transaction = sql.begin(async (tx) => {
        await tx\`select 1\`;
        await tx\`select pg_sleep(5)\`;
      }).then(() => 'committed', (error) => error.code);
      // Settled before it was ended: an error of an earlier backend replayed onto this one (#1223).
      let ending = false;
      transaction.then((code) => {
        if (ending) return;
        console.log(JSON.stringify({ round, settledBeforeItWasEnded: code }));
        process.exit(2);
      });
      const [{ pid }] = await untilRow(() => admin\`
        select pid from pg_stat_activity
        where application_name = \${name} and state = 'active' and query like 'select pg_sleep%'\`);
      ending = true;
      await admin\`select pg_terminate_backend(\${pid})\`;
      codes.push(await transaction);
    }
    await sql.end({ timeout: 1 });
    await admin.end();
    console.log(JSON.stringify(codes));
  `);
  expect(code, stdout + stderr).toBe(0);
  const codes = JSON.parse(stdout) as string[];
  expect(codes).toHaveLength(10);
  // Each failed as its connection closed or was reset; none committed.
  for (const result of codes) expect(['CONNECTION_CLOSED', 'ECONNRESET']).toContain(result);
}, 60_000);

it('a new connection ended or cancelled while it fetches the array types: the process goes on', async () => {
  // The types query is made to wait on a lock of pg_type (in this file's own database) and its
  // backend is then ended (pg_terminate_backend) or cancelled (pg_cancel_backend). A backend's own
  // start reads pg_type too, so a proxy holds the types query until the backend has started and the
  // lock is taken. Unpatched, both end the process; with only the rejection handled, the ended one
  // failed the query of the connection made next with the old backend's 57P01.
  const { code, stdout, stderr } = await runScript(`
    import net from 'node:net';
    import postgres from 'postgres';
    ${untilRow}
    let holdTypesQuery = null;
    const target = new URL(process.env.URL);
    const proxy = net.createServer((client) => {
      const server = net.connect(Number(target.port), target.hostname);
      let held = null;
      client.on('data', (chunk) => {
        if (held) return void held.push(chunk);
        if (holdTypesQuery && chunk.includes('b.typarray')) {
          held = [chunk];
          holdTypesQuery(() => {
            for (const bytes of held) server.write(bytes);
            held = null;
          });
          holdTypesQuery = null;
          return;
        }
        server.write(chunk);
      });
      server.on('data', (chunk) => client.write(chunk));
      client.on('close', () => server.destroy());
      server.on('close', () => client.destroy());
      client.on('error', () => {});
      server.on('error', () => {});
    });
    await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const viaProxy = new URL(process.env.URL);
    viaProxy.port = String(proxy.address().port);

    const admin = postgres(process.env.URL, { max: 1, onnotice: () => {} });
    const results = {};
    for (const stop of ['pg_terminate_backend', 'pg_cancel_backend']) {
      const name = 'driver-patch-' + stop + '-' + process.pid;
      const sql = postgres(viaProxy.toString(), { max: 1, onnotice: () => {}, connection: { application_name: name } });
      const held = new Promise((resolve) => (holdTypesQuery = resolve));
      const first = sql\`select 1 as answer\`.then(([row]) => row.answer, (error) => error.code);
      const releaseTypesQuery = await held;
      const locker = await admin.reserve();
      await locker\`begin\`;
      await locker\`lock table pg_catalog.pg_type in access exclusive mode\`;
      releaseTypesQuery();
      // A transaction reads pg_stat_activity once, unless told to read it again (the snapshot cleared);
      // a new connection, to watch from, would wait on the lock as it starts.
      const [{ pid }] = await untilRow(async () => {
        await locker\`select pg_stat_clear_snapshot()\`;
        return locker\`
        select pid from pg_stat_activity
        where application_name = \${name} and wait_event_type = 'Lock' and query like '%b.typarray%'\`;
      });
      await locker\`select \${locker.unsafe(stop)}(\${pid})\`;
      await locker\`commit\`;
      locker.release();
      const next = await sql\`select 2 as answer\`.then(([row]) => row.answer, (error) => error.code);
      results[stop] = [await first, next];
      await sql.end({ timeout: 1 });
    }
    await admin.end();
    proxy.close();
    console.log(JSON.stringify(results));
  `);
  expect(code, stdout + stderr).toBe(0);
  expect(JSON.parse(stdout)).toEqual({
    // Ended: the driver connects again and runs the query there.
    pg_terminate_backend: [1, 2],
    // Cancelled: the query that opened the connection gets the cancellation; the connection serves on.
    pg_cancel_backend: ['57014', 2],
  });
}, 60_000);
