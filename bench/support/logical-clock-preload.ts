/**
 * `node --import bench/support/logical-clock-preload.ts`: a chaintap process of the soak on the soak's
 * logical clock (logical-clock.ts), set by its parent over the IPC channel ({ logicalMs }); it answers
 * { memory: true } with its process.memoryUsage(). The channel never keeps the process alive.
 */
import { installLogicalClock } from './logical-clock.ts';

const clock = installLogicalClock();
const start = Number(process.env.SOAK_LOGICAL_START_MS);
if (Number.isFinite(start)) clock.set(start);

process.on('message', (message: { logicalMs?: number; memory?: true }) => {
  if (typeof message.logicalMs === 'number') clock.set(message.logicalMs);
  if (message.memory) process.send?.({ memory: process.memoryUsage() });
});
process.channel?.unref();
