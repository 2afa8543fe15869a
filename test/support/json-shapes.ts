import { z } from 'zod';

// Shapes documented in docs/operations.md, "JSON output", shared by the tests of every output that
// has them: `chaintap status --json` and the ops server's /status.json, the watched addresses of
// `addresses list --json`. Strict objects: a field added without the documentation, or renamed, fails.
export const iso = z.iso.datetime();
export const count = z.number().int().nonnegative();
export const WatchedAddress = z.strictObject({
  address: z.string(),
  format: z.enum(['sui', 'evm', 'solana', 'bitcoin', 'ton']).nullable(),
  datasets: z.array(z.enum(['positions', 'nfts'])).min(1),
  chain: z.string().nullable(),
  protocols: z.array(z.string()).nullable(),
  nftChain: z.string(),
  includePnl: z.boolean(),
  addedAt: iso,
  maxAgeSeconds: z.number().int().positive().nullable(),
  everySeconds: z.number().int().positive().nullable(),
});
export const Status = z.strictObject({
  now: iso,
  datasets: z.array(
    z.strictObject({
      dataset: z.string(),
      targets: count,
      newestTick: iso.nullable(),
      oldestTick: iso.nullable(),
      lastSuccessAt: iso.nullable(),
      ageSeconds: z.number().nullable(),
    }),
  ),
  addresses: z.strictObject({ count, listed: z.array(WatchedAddress) }),
  // `plan`: the object `chaintap plan --json` prints (docs/quota.md); its own fields are checked there.
  quota: z.strictObject({
    plan: z.looseObject({ fits: z.boolean(), neededPerHour: z.number(), availablePerHour: z.number() }),
    supersededLastHour: z.array(z.strictObject({ dataset: z.string(), superseded: count })),
    pause: z.strictObject({ until: iso, reason: z.string() }).nullable(),
    refresh: z.strictObject({
      unheld: z.boolean(),
      datasets: z.array(
        z.strictObject({
          dataset: z.enum(['positions', 'nfts']),
          targets: count,
          perHour: z.number(),
          everySlot: z.boolean(),
          meanDelaySeconds: z.number().nullable(),
          p95DelaySeconds: z.number().nullable(),
          overMaxAge: count,
          nearestMaxAge: z.array(
            z.strictObject({ target: z.string(), ageSeconds: z.number(), maxAgeSeconds: z.number() }),
          ),
        }),
      ),
    }),
    changesLast24h: z.array(z.strictObject({ dataset: z.string(), changes: count, meanDelaySeconds: z.number() })),
  }),
  queues: z.strictObject({
    redis: z.string(),
    depths: z.array(
      z.strictObject({
        queue: z.string(),
        counts: z.strictObject({
          waiting: count,
          prioritized: count,
          delayed: count,
          active: count,
          'waiting-children': count,
          failed: count,
          completed: count,
        }),
      }),
    ),
  }),
  failuresLast24h: z.array(
    z.strictObject({
      dataset: z.string(),
      failed: count,
      quarantined: count,
      authFailures: count,
      lastQuarantineReason: z.string().nullable(),
    }),
  ),
  schemaDriftsLast24h: z.array(
    z.strictObject({
      dataset: z.string(),
      field: z.string(),
      shape: z.string(),
      count,
      firstSeenAt: iso,
      lastSeenAt: iso,
    }),
  ),
});
