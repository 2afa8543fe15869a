/**
 * `node --import bench/support/logical-clock-preload.ts`: a chaintap process of the soak on the soak's
 * logical clock (logical-clock.ts), set by its parent over the IPC channel ({ logicalMs }); it answers
 * { memory: true } with its memory right after a full garbage collection. The channel never keeps the process alive.
 */
import { installLogicalClock } from './logical-clock.ts';
import { settledMemoryUsage } from './settled-memory.ts';

const clock = installLogicalClock();
const start = Number(process.env.SOAK_LOGICAL_START_MS);
if (Number.isFinite(start)) clock.set(start);

process.on('message', (message: { logicalMs?: number; memory?: true }) => {
  if (typeof message.logicalMs === 'number') clock.set(message.logicalMs);
  if (message.memory) process.send?.({ memory: settledMemoryUsage() });
});
process.channel?.unref();
