import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import type { Queues } from '../queue/queues.ts';

export const BULL_BOARD_PATH = '/queues';

/**
 * Mounts Bull Board (jobs of every queue) under /queues; loaded when the app gets ready. Read-only
 * unless the server has OPS_ADMIN_TOKEN: the board then shows no action buttons and its own API
 * refuses them. That is the second line: the server's access hook (ops-token.ts) already answers
 * 403 to every board action a request without the admin token makes, whatever the board's mode.
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
