import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import type { Queues } from '../queue/queues.ts';

const BULL_BOARD_PATH = '/queues';

/**
 * Mounts Bull Board (jobs of every queue) under /queues. Read-only without OPS_ADMIN_TOKEN: no action
 * buttons, and its API refuses them, a second line behind the access hook's 403 (ops-token.ts).
 */
export function registerBullBoard(app: FastifyInstance, queues: Queues, settings: { readOnly: boolean }): void {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: Object.values(queues).map((queue) => new BullMQAdapter(queue, { readOnlyMode: settings.readOnly })),
    serverAdapter,
    options: { uiConfig: { boardTitle: settings.readOnly ? 'chaintap (read-only)' : 'chaintap' } },
  });
  void app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
}
