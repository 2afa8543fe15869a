import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import type { Queues } from '../queue/queues.js';

export const BULL_BOARD_PATH = '/queues';

/** Mounts Bull Board (jobs of every queue: inspect, retry, clean) under /queues; loaded when the app gets ready. */
export function registerBullBoard(app: FastifyInstance, queues: Queues): void {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: Object.values(queues).map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'chaintap' } },
  });
  void app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
}
