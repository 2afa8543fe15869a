import type { RunningSimulator } from '../../src/simulator/index.ts';

/** Plain HTTP calls to a running simulator, as a client would make them. */
export interface SimulatorAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export const TEST_KEY = 'test-key-0123456789';

export async function call(
  simulator: RunningSimulator,
  path: string,
  options: { body?: unknown; apiKey?: string | null; signal?: AbortSignal } = {},
): Promise<SimulatorAnswer> {
  const headers: Record<string, string> = {};
  const apiKey = options.apiKey === undefined ? TEST_KEY : options.apiKey;
  if (apiKey !== null) headers['x-api-key'] = apiKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${simulator.url}${path}`, {
    method: options.body === undefined ? 'GET' : 'POST',
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
    signal: options.signal,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export function json<T = unknown>(answer: SimulatorAnswer): T {
  return JSON.parse(answer.text) as T;
}
