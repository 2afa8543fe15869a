/**
 * Measures how many requests per second the simulator answers on one core: the simulator runs in
 * this process, the load comes from a child process (an undici Pool with keep-alive), so client and
 * server do not share a core. Usage: node bench/tools/simulator-throughput.ts [seconds] [connections]
 * [habits]: `habits` answers from the living world (docs/simulator.md), else the default world.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { startSimulator } from '../../src/simulator/server.ts';

const seconds = Number(process.argv[2] ?? 3);
const connections = Number(process.argv[3] ?? 32);
const habits = process.argv[4] === 'habits';
const API_KEY = 'throughput-key';

/** The load generator, run in the child: each scenario builds request i and is driven for `seconds`. */
const LOAD = `
const { Pool } = await import(process.env.UNDICI_URL);
const pool = new Pool(process.env.TARGET, { connections: ${connections}, pipelining: 1 });
const headers = { 'x-api-key': process.env.API_KEY, 'content-type': 'application/json' };
const address = (i) => '0x' + i.toString(16).padStart(64, '0');
const coin = (i) => '0x' + (i + 4096).toString(16) + '::coin' + i + '::C' + i;
const batch = (b) => JSON.stringify({ addresses: Array.from({ length: 50 }, (_, j) => coin(b * 50 + j)).join(',') });
const scenarios = {
  'positions, new address each request': (i) => ({ method: 'GET', path: '/v2/address/' + address(i) + '/positions' }),
  'positions, 100 addresses': (i) => ({ method: 'GET', path: '/v2/address/' + address(i % 100) + '/positions' }),
  'nft-holding?includePnl=true, new address each request': (i) => ({ method: 'GET', path: '/v2/address/' + address(i) + '/nft-holding?includePnl=true' }),
  'price, 50 tokens, 40 batches': (i) => ({ method: 'POST', path: '/tokens/sui/price', body: batch(i % 40) }),
  'price, 50 tokens, new past timestamp each request': (i) => ({ method: 'POST', path: '/tokens/sui/price', body: JSON.stringify({ addresses: JSON.parse(batch(i % 40)).addresses, timestamp: 1700000000 + i * 60 }) }),
  'protocols': () => ({ method: 'GET', path: '/v2/defi/protocols' }),
};
const results = [];
for (const [name, build] of Object.entries(scenarios)) {
  let next = 0, done = 0, failed = 0;
  const end = Date.now() + ${seconds} * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const { method, path, body } = build(next++);
      const response = await pool.request({ method, path, headers, body });
      await response.body.arrayBuffer();
      if (response.statusCode === 200) done++; else failed++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: ${connections} }, worker));
  results.push({ scenario: name, requestsPerSecond: Math.round(done / ((Date.now() - started) / 1000)), failed });
}
await pool.close();
process.stdout.write(JSON.stringify(results));
`;

const simulator = await startSimulator({ apiKey: API_KEY, world: { habits } });
try {
  const undiciUrl = pathToFileURL(createRequire(import.meta.url).resolve('undici')).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', LOAD], {
    env: { ...process.env, TARGET: simulator.url, API_KEY, UNDICI_URL: undiciUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  console.table(JSON.parse(output));
  console.log(`${connections} keep-alive connections, ${seconds} s per scenario; simulator stats:`, simulator.stats());
} finally {
  await simulator.close();
}
