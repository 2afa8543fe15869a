/**
 * The soak's scheduler in a process of its own, as `chaintap scheduler` runs it (the CLI's context
 * and openResources, the real createScheduler), on a clock the soak steps over IPC:
 * { advanceTo: ms } fires every cron slot up to that logical minute, in order, and answers
 * { advanced: ms }; { heapSnapshot: path } writes a V8 heap snapshot there and answers { written: path }.
 * So its RSS is the scheduler's alone, not the benchmark's bookkeeping with it. Run with
 * `--import logical-clock-preload.ts` (Date on the logical clock; { memory: true } answered there).
 */
import { writeHeapSnapshot } from 'node:v8';
import { openResources } from '../../src/cli/resources.ts';
import { createCliContext, untilShutdown } from '../../src/cli/runtime.ts';
import { withShutdown } from '../../src/runtime/shutdown.ts';
import { createScheduler } from '../../src/scheduler/scheduler.ts';
import { createFakeSchedulerClock } from '../../test/support/fake-scheduler-clock.ts';

type Message = { advanceTo?: number; heapSnapshot?: string };

const context = createCliContext();
await withShutdown(context.logger, async (shutdown) => {
  const resources = await openResources(context, shutdown);
  // The last minute it fired: a scheduler started again goes on from the minute after it.
  const clock = createFakeSchedulerClock(new Date(Number(process.env.SOAK_LOGICAL_START_MS)));
  const scheduler = createScheduler({
    context,
    ...resources,
    clock,
    // Redis's TIME is real time, a month behind the logical one; Date here is the logical clock.
    referenceClock: async () => new Date(),
  });
  shutdown.add('scheduler', () => scheduler.stop());
  await scheduler.start();
  // One request at a time, in the order sent: the soak awaits each minute before the next.
  let requests = Promise.resolve();
  process.on('message', (message: Message) => {
    requests = requests.then(async () => {
      if (typeof message.advanceTo === 'number') {
        await clock.advanceTo(new Date(message.advanceTo));
        process.send?.({ advanced: message.advanceTo });
      }
      if (typeof message.heapSnapshot === 'string')
        process.send?.({ written: writeHeapSnapshot(message.heapSnapshot) });
    });
  });
  process.send?.({ ready: true });
  await untilShutdown(context);
});
