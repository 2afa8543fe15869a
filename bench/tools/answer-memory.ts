/**
 * Measures what large upstream answers cost a worker under the heap docs/operations.md recommends,
 * not a test (test/worker/answer-elements-cap.test.ts asserts the cap itself):
 *   node bench/tools/answer-memory.ts [shape] [values] [bytes] [addresses]
 * Serves a positions (or NFT holdings) answer of the given shape, at most `values` JSON values and
 * padded to `bytes`, to each of `addresses` watched addresses (default 1; their jobs run at once),
 * and runs `chaintap run-once` against it in a process of its own with workerHeapFlags(), then with
 * half that old space; prints its exit code, wall time, peak RSS, the largest heap V8 reported before
 * a collection and the largest a full collection left alive (from --trace-gc), and what became of
 * the answers. A run is killed after 120 s. Shapes:
 *   positions  minimal positions (4 values each: the most rows per value)
 *   amounts    positions of 20 amount entries each
 *   nfts       NFT groups of 50 tokens each
 * Without arguments: every shape at UPSTREAM_MAX_ELEMENTS and UPSTREAM_MAX_BODY_BYTES (the worst
 * answers the limits let through), then 160,000 minimal positions (8 MB, the answer of issue 31).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { addWatchedAddresses } from '../../src/db/index.ts';
import { loadOptions } from '../../src/config/options.ts';
import { WORKER_OLD_SPACE_MB, workerHeapFlags } from '../../src/config/memory-budget.ts';
import { benchRedisPrefix, benchServices, createBenchDatabase, deleteRedisKeys } from '../support/services.ts';

const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));
/** The watched addresses: each gets the same answer, their jobs run at once (UPSTREAM_CONCURRENCY). */
const addressesOf = (count: number) => Array.from({ length: count }, (_, i) => `0x${i.toString(16).padStart(64, 'a')}`);
type Shape = 'positions' | 'amounts' | 'nfts';

/** Each shape's element (the `i`th) and how many JSON values it holds. */
const ELEMENTS: Record<Shape, { values: number; text(i: number): string }> = {
  positions: { values: 4, text: (i) => `{"positionId":"p${i}","chain":"SUI","type":"AMM"}` },
  amounts: {
    values: 5 + 20 * 4,
    text: (i) =>
      `{"positionId":"p${i}","chain":"SUI","type":"AMM","input":[${Array.from(
        { length: 20 },
        (_, k) => `{"amount":${k},"value":1,"token":"0x2::sui::SUI"}`,
      ).join(',')}]}`,
  },
  nfts: {
    values: 3 + 50 * 2,
    text: (i) =>
      `{"collectionId":"c${i}","tokens":[${Array.from({ length: 50 }, (_, k) => `{"tokenId":"${i}-${k}"}`).join(',')}]}`,
  },
};

/** An answer of at most `values` JSON values (keys not counted), padded to `bytes`. */
export function answerBody(shape: Shape, values: number, bytes: number): string {
  const element = ELEMENTS[shape];
  const parts: string[] = [];
  // The envelope, its list and the padding string: 3 values.
  for (let counted = 3; counted + element.values <= values; counted += element.values)
    parts.push(element.text(parts.length));
  const bare = `"data":[${parts.join(',')}]}`;
  // Padding in one field of the envelope: a string is one value, however long.
  const pad = Math.max(0, bytes - bare.length - '{"pad":"",'.length);
  return `{"pad":"${'x'.repeat(pad)}",${bare}`;
}

interface Measured {
  code: number | null;
  seconds: number;
  maxRssMb: number;
  peakHeapMb: number;
  /** The largest heap a full collection left: what was alive. */
  liveHeapMb: number;
  summary: string;
}

async function runOnce(env: Record<string, string>, dataset: string, oldSpaceMb: number): Promise<Measured> {
  const hook = `data:text/javascript,${encodeURIComponent(
    "process.on('exit', () => process.stderr.write(`maxrss_kb=${process.resourceUsage().maxRSS}\\n`))",
  )}`;
  const args = [
    ...workerHeapFlags(oldSpaceMb),
    '--trace-gc',
    `--import=${hook}`,
    CLI,
    'run-once',
    '--datasets',
    dataset,
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(killer);
  // "Mark-Compact 180.2 (190.1) -> 150.3 (160.0) MB": the heap in use before each collection.
  const heaps = [...out.matchAll(/(?:Scavenge|Mark-Compact)[^\d]*([\d.]+) \([\d.]+\) ->/g)].map((m) => Number(m[1]));
  const live = [...out.matchAll(/Mark-Compact[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+)/g)].map((m) => Number(m[1]));
  const rss = /maxrss_kb=(\d+)/.exec(out);
  // The run's summary row (jobs, succeeded, quarantined, failed, rows written), or how it died.
  const summary = (/^(?:positions|nfts) +\d.*$/m.exec(out)?.[0] ?? /FATAL ERROR.*/.exec(out)?.[0] ?? '').replace(
    / +/g,
    ' ',
  );
  return {
    code,
    seconds: (performance.now() - started) / 1000,
    maxRssMb: rss ? Number(rss[1]) / 1024 : NaN,
    peakHeapMb: heaps.length ? Math.max(...heaps) : NaN,
    liveHeapMb: live.length ? Math.max(...live) : NaN,
    summary,
  };
}

async function main(): Promise<void> {
  const defaults = loadOptions({}, {});
  const [shapeArg, valuesArg, bytesArg, addressesArg] = process.argv.slice(2);
  const addresses = addressesOf(Number(addressesArg ?? 1));
  const runs: { shape: Shape; values: number; bytes: number }[] = shapeArg
    ? [
        {
          shape: shapeArg as Shape,
          values: Number(valuesArg ?? defaults.UPSTREAM_MAX_ELEMENTS),
          bytes: Number(bytesArg ?? defaults.UPSTREAM_MAX_BODY_BYTES),
        },
      ]
    : [
        ...(['positions', 'amounts', 'nfts'] as const).map((shape) => ({
          shape,
          values: defaults.UPSTREAM_MAX_ELEMENTS,
          bytes: defaults.UPSTREAM_MAX_BODY_BYTES,
        })),
        { shape: 'positions', values: 4 * 160_000 + 3, bytes: 0 },
      ];
  let body = '';
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url?.includes('/positions') || req.url?.includes('/nft-holding') ? body : '{"data":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const services = benchServices();
  const database = await createBenchDatabase(services, 'answer_memory', 2);
  const prefixes: string[] = [];
  try {
    await addWatchedAddresses(database, addresses, {});
    for (const run of runs) {
      body = answerBody(run.shape, run.values, run.bytes);
      // At the documented heap, then at half of it: what margin the documented one leaves.
      for (const oldSpaceMb of [WORKER_OLD_SPACE_MB, WORKER_OLD_SPACE_MB / 2]) {
        const env = {
          DATABASE_URL: database.url,
          REDIS_URL: services.redisUrl,
          // A queue of each run's own: two runs in one minute would be one tick's job.
          QUEUE_PREFIX: prefixes[prefixes.push(benchRedisPrefix()) - 1]!,
          UPSTREAM_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          UPSTREAM_API_KEY: 'bench',
          UPSTREAM_RATE: '100/s',
          LOG_LEVEL: 'warn',
        };
        const measured = await runOnce(env, run.shape === 'nfts' ? 'nfts' : 'positions', oldSpaceMb);
        console.log(
          `${run.shape}: ${run.values.toLocaleString('en-US')} values, ${(body.length / 1024 / 1024).toFixed(2)} MiB, ` +
            `old space ${oldSpaceMb} MB: exit ${measured.code}, ${measured.seconds.toFixed(1)} s, ` +
            `peak RSS ${measured.maxRssMb.toFixed(0)} MB, heap before a collection ${measured.peakHeapMb.toFixed(0)} MB, ` +
            `live after a full one ${measured.liveHeapMb.toFixed(0)} MB; ${measured.summary}`,
        );
        await database.sql`truncate positions, position_refreshes, nft_collections, nft_refreshes, quarantined_payloads, raw_responses, ingestion_runs cascade`;
      }
    }
  } finally {
    server.close();
    for (const prefix of prefixes) await deleteRedisKeys(services.redisUrl, prefix);
    await database.drop();
  }
}

await main();
