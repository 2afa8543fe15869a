import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChaintapError } from '../errors.ts';
import { readBody, writeAnswer } from './routes.ts';
import type { SimulatorControl } from './server.ts';

/**
 * The simulator's own endpoints, for a simulator run as a separate process (`chaintap simulate`):
 * benchmarks and fault tests read its stats and change its faults and clock over HTTP. They need
 * the API key, are not counted in the stats and never get faults.
 *
 *   GET  /_simulator/stats           -> SimulatorStats
 *   POST /_simulator/stats/reset     -> {}
 *   POST /_simulator/faults          {latencyMs?, error5xxRate?, ...} -> {}
 *   POST /_simulator/clock           {offsetMs} -> {}
 */
export const CONTROL_PREFIX = '/_simulator/';

export function answerControl(req: IncomingMessage, res: ServerResponse, pathname: string, control: SimulatorControl) {
  const reply = (status: number, body: unknown) => writeAnswer(res, { status, body: JSON.stringify(body) });
  const route = `${req.method} ${pathname}`;
  if (route === 'POST /_simulator/faults' || route === 'POST /_simulator/clock') {
    return readBody(req, (text) => {
      try {
        const body: unknown = JSON.parse(text ?? '');
        if (typeof body !== 'object' || body === null) throw new ChaintapError('the body must be a JSON object');
        if (route === 'POST /_simulator/faults') control.setFaults(body);
        else {
          const { offsetMs } = body as { offsetMs?: unknown };
          if (typeof offsetMs !== 'number' || !Number.isSafeInteger(offsetMs))
            throw new ChaintapError('offsetMs must be an integer');
          control.setClockOffset(offsetMs);
        }
        reply(200, {});
      } catch (error) {
        reply(400, { error: 'bad_request', message: (error as Error).message });
      }
    });
  }
  req.resume();
  if (route === 'GET /_simulator/stats') return reply(200, control.stats());
  if (route !== 'POST /_simulator/stats/reset')
    return reply(404, { error: 'not_found', message: `no such simulator endpoint: ${route}` });
  control.resetStats();
  reply(200, {});
}
