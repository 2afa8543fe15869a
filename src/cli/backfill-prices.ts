import { listWatchedTokens, storedPriceTimes } from '../db/index.ts';
import { describe, InvalidInputError } from '../errors.ts';
import { whenReachable } from '../db/when-reachable.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import { createWorkerPool } from '../worker/workers.ts';
import { createInterface } from 'node:readline';
import {
  backfillConsent,
  backfillTimes,
  CONFIRM_ABOVE_REQUESTS,
  describeBackfillEstimate,
  estimateBackfill,
  planBackfill,
  type BackfillEstimate,
} from '../scheduler/backfill-plan.ts';
import type { UpstreamRate } from '../config/upstream-rate.ts';
import { enqueueJobs } from '../scheduler/producer.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import { openResources, openUpstreamClient } from './resources.ts';
import { waitForTicks, type CycleDeps } from './run-cycle.ts';
import { summarizeRuns } from './run-summary.ts';
import { createCliContext } from './runtime.ts';
import { EXIT } from './exit-codes.ts';
import { createProgressLine, type ProgressLine } from './progress-line.ts';
import type { LoggerSettings } from '../runtime/logger.ts';

export interface BackfillRequest {
  from: Date;
  to: Date;
  intervalMs: number;
  /** Default: the token watchlist. */
  coinTypes?: string[];
  onProgress?: (finished: number, expected: number) => void;
  /** Called with the plan before anything is enqueued; a throw stops the backfill there. */
  confirm?: (estimate: BackfillEstimate) => Promise<void>;
}

/**
 * Prices at every step of a time range through the upstream's `timestamp` parameter. Times already
 * stored are skipped and job ids are deterministic, so an interrupted backfill, run again, resumes
 * where it stopped (jobs still queued from the first run are the same jobs).
 */
export async function runBackfill(deps: CycleDeps, request: BackfillRequest) {
  const coinTypes = request.coinTypes
    ? [...new Set(request.coinTypes.map((coin) => normalizeCoinType(coin)))]
    : await listWatchedTokens(deps.database);
  if (coinTypes.length === 0)
    throw new InvalidInputError('no tokens to backfill: pass --tokens or add tokens to the watchlist');
  const times = backfillTimes(request.from, request.to, request.intervalMs);
  const end = new Date(times.at(-1)!.getTime() + request.intervalMs);
  const stored = await storedPriceTimes(deps.database, coinTypes, request.from, end);
  const plan = planBackfill(coinTypes, times, request.intervalMs, stored);
  deps.context.logger.info(
    { steps: times.length, coinTypes: coinTypes.length, jobs: plan.jobs.length, skipped: plan.skipped },
    'backfill planned',
  );
  await request.confirm?.(estimateBackfill(times.length, coinTypes.length, plan.jobs.length));

  // This run's jobs, whose outcome is the run's (an earlier run's failed batch may be regrouped into
  // new ones), and the times they ask for.
  const jobIds = plan.jobs.map((job) => job.opts.jobId);
  const ticks = [...plan.byTick.keys()].map((tick) => new Date(tick));
  return withShutdown(deps.context.logger, async (shutdown) => {
    const pool = createWorkerPool({ ...deps, queueNames: ['prices'] });
    shutdown.add('workers', () => pool.close());
    for (const [tick, ids] of plan.byTick) await deps.tracker.expect('backfill', new Date(tick), ids);
    await enqueueJobs(deps, 'prices', plan.jobs);
    await retryFailedFromEarlierRuns(deps, new Set(jobIds));
    const complete = await waitForTicks(deps, {
      streams: ticks.map((tick) => ({ stream: 'backfill' as const, tick })),
      queues: ['prices'],
      onProgress: request.onProgress,
    });
    return {
      steps: times.length,
      coinTypes: coinTypes.length,
      jobs: plan.jobs.length,
      skipped: plan.skipped,
      complete,
      jobIds,
      ticks,
    };
  });
}

/** A job that failed for good in an earlier run keeps its id (and would block re-adding): retry it. */
async function retryFailedFromEarlierRuns(deps: CycleDeps, ids: Set<string>): Promise<void> {
  if (ids.size === 0) return;
  const failed = await deps.queues.prices.getJobs(['failed'], 0, -1);
  for (const job of failed) {
    if (!job.id || !ids.has(job.id)) continue;
    await deps.tracker.reopen('backfill', new Date(job.data.tick), [job.id]);
    await job.retry('failed');
  }
}

interface ConfirmSettings {
  rate: UpstreamRate;
  yes: boolean;
  /** Where a person answers (stdin), and where the plan and the question go. */
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  /** The command's shutdown signal (Ctrl-C): a question still open is answered no. */
  signal?: AbortSignal;
}

/** The backfill command's `confirm`: prints the plan, then goes on, asks or refuses (backfillConsent). */
export async function confirmBackfill(estimate: BackfillEstimate, settings: ConfirmSettings): Promise<void> {
  const lines = describeBackfillEstimate(estimate, settings.rate);
  settings.output.write(`${lines.join('\n')}\n`);
  const consent = backfillConsent(estimate.requests, { yes: settings.yes, terminal: settings.input.isTTY === true });
  if (consent === 'go') return;
  const size = `${estimate.requests.toLocaleString('en-US')} requests`;
  if (consent === 'refuse') {
    throw new InvalidInputError(
      `nothing started: ${size} is more than ${CONFIRM_ABOVE_REQUESTS.toLocaleString('en-US')} and stdin is not a terminal to confirm it: pass --yes to start it, or use a larger --interval, a shorter range or fewer --tokens`,
    );
  }
  if (!(await askYes(`start ${size}? [y/N] `, settings))) throw new InvalidInputError('nothing started: not confirmed');
}

/** One question at the terminal; anything but y or yes, Ctrl-C or the end of input is a no. */
function askYes(question: string, settings: ConfirmSettings): Promise<boolean> {
  const prompt = createInterface({ input: settings.input, output: settings.output, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    prompt.once('line', (line) => {
      answered = true;
      resolve(/^\s*y(es)?\s*$/i.test(line));
      prompt.close();
    });
    const close = () => prompt.close();
    settings.signal?.addEventListener('abort', close, { once: true });
    prompt.once('close', () => {
      settings.signal?.removeEventListener('abort', close);
      if (answered) return;
      // Ended without an answer (Ctrl-C, end of input): what follows starts on a line of its own.
      settings.output.write('\n');
      resolve(false);
    });
    if (settings.signal?.aborted) close();
    settings.output.write(question);
  });
}

/** What `chaintap backfill prices --json` prints (docs/operations.md, "JSON output"). */
export interface BackfillOutcome {
  from: string;
  to: string;
  intervalSeconds: number;
  steps: number;
  tokens: number;
  /** Prices (a token at a step) already stored, not asked again. */
  alreadyStored: number;
  requests: number;
  complete: boolean;
  succeeded: number;
  failed: number;
  quarantined: number;
  /** Requests without an outcome: interrupted (Ctrl-C), or whose failure could not be recorded. */
  unfinished: number;
}

/** `chaintap backfill prices` in this process; exit code 0 only when every request is done and none failed. */
export async function backfillPrices(
  request: Pick<BackfillRequest, 'from' | 'to' | 'intervalMs' | 'coinTypes'> & { yes: boolean; json: boolean },
): Promise<void> {
  const progress = createProgressLine({ label: 'backfill' });
  const context = createCliContext({}, { destination: await logsAbove(progress) });
  // With --json, standard output carries the document alone: the plan and the question go to stderr.
  const text = request.json ? process.stderr : process.stdout;
  await withShutdown(context.logger, async (shutdown) => {
    const resources = await openResources(context, shutdown);
    const client = openUpstreamClient(context, shutdown);
    // The bar is left on its own line whatever happens, so that an error is never written onto it.
    const outcome = await runBackfill(
      { context, ...resources, client },
      {
        ...request,
        onProgress: progress.update,
        confirm: (estimate) =>
          confirmBackfill(estimate, {
            rate: context.options.UPSTREAM_RATE,
            yes: request.yes,
            input: process.stdin,
            output: text,
            signal: context.signal,
          }),
      },
    ).finally(() => progress.finish());
    // This run's requests only: a request that failed in an earlier run and whose prices are stored
    // now, or asked again in a new batch, is history, not this run's failure. Read once Postgres
    // answers: its last jobs may have failed because it refused connections.
    const [runs] = await whenReachable(
      () => summarizeRuns(resources.database, ['backfill'], outcome.ticks, outcome.jobIds),
      {
        waitMs: 60_000,
        onWait: (error) =>
          context.logger.warn(
            { err: describe(error) },
            "PostgreSQL does not answer: waiting to read the backfill's outcome",
          ),
      },
    );
    const { succeeded, failed, quarantined } = runs!;
    const summary: BackfillOutcome = {
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      intervalSeconds: request.intervalMs / 1000,
      steps: outcome.steps,
      tokens: outcome.coinTypes,
      alreadyStored: outcome.skipped,
      requests: outcome.jobs,
      complete: outcome.complete,
      succeeded,
      failed,
      quarantined,
      // Requests without a final outcome recorded: interrupted (Ctrl-C), or whose failure could not be
      // recorded (their run row still says running, or there is none).
      unfinished: outcome.jobIds.length - succeeded - failed - quarantined,
    };
    if (request.json) console.log(JSON.stringify(summary, null, 2));
    else {
      console.log(
        `backfill: ${summary.steps} step(s) x ${summary.tokens} token(s); ${summary.alreadyStored} already stored, ${summary.requests} request(s) ${summary.complete ? 'done' : 'NOT all done'}`,
      );
    }
    const { unfinished } = summary;
    if (failed > 0 || unfinished > 0 || quarantined > 0) {
      const notDone = unfinished > 0 ? `, ${unfinished} did not finish` : '';
      console.error(
        `${failed} request(s) failed${notDone} and ${quarantined} were quarantined: run the same command again to retry them`,
      );
    }
    process.exitCode = outcome.complete && failed === 0 && unfinished === 0 ? EXIT.ok : EXIT.failed;
  });
}

/**
 * On a terminal, the log lines go through the progress line, formatted as the logger formats them
 * for a terminal (pino-pretty), so that one never breaks the bar; elsewhere the logger's own output.
 */
async function logsAbove(progress: ProgressLine): Promise<LoggerSettings['destination']> {
  if (!progress.terminal) return undefined;
  const { default: pinoPretty } = await import('pino-pretty');
  // As the logger's own pretty lines: without the `service` field the JSON lines carry for shippers.
  const prettify = pinoPretty.prettyFactory({ colorize: true, ignore: 'hostname,service' });
  return { write: (line: string) => progress.writeLog(prettify(line)) };
}
