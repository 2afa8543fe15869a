/**
 * The cadence bench's virtual time checked end to end (issue 30, item 7):
 *   node bench/tools/cadence-e2e.ts [wallets] [days]
 * (default 300 wallets, 3 days: 2 of warm-up, the third measured; BENCH_ADMIN_URL and BENCH_REDIS_URL
 * as for `npm run bench`): bench/support/cadence-end-to-end.ts at 10 requests a simulated minute (as
 * 40/min is for 2,000 wallets, short of every wallet every slot), a simulated minute every 100 ms.
 * Mean and p95 within 20 % of virtual time is the target.
 */
import { runCadenceEndToEnd } from '../support/cadence-end-to-end.ts';
import { benchAddress } from '../support/scenario.ts';
import { benchServices } from '../support/services.ts';

const WALLETS = Number(process.argv[2] ?? 300);
const DAYS = Number(process.argv[3] ?? 3);
const QUOTA_PER_MINUTE = 10;
const MINUTE = 60_000;

const result = await runCadenceEndToEnd(benchServices(), {
  wallets: Array.from({ length: WALLETS }, (_, i) => benchAddress(i)),
  days: DAYS,
  realMsPerMinute: 100,
  quotaPerMinute: QUOTA_PER_MINUTE,
  tokens: 10,
  log: (line) => process.stderr.write(`${line}\n`),
});
const { endToEnd: e2e, virtual } = result;
const minutes = (ms: number) => (ms / MINUTE).toFixed(1);
console.log(
  JSON.stringify({
    wallets: WALLETS,
    days: DAYS,
    quotaPerMinute: QUOTA_PER_MINUTE,
    endToEnd: {
      changes: e2e.changes,
      unseen: e2e.unseen,
      meanMin: minutes(e2e.mean),
      p95Min: minutes(e2e.p95),
      positionsRequests: e2e.positionsRequests,
      statuses: e2e.statuses,
    },
    virtual: {
      changes: virtual.changes,
      meanMin: minutes(virtual.mean),
      p95Min: minutes(virtual.p95),
      positionsRequests: virtual.positionsRequests,
    },
    ratio: { mean: (e2e.mean / virtual.mean).toFixed(3), p95: (e2e.p95 / virtual.p95).toFixed(3) },
  }),
);
