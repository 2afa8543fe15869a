import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOptions } from '../../src/config/options.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.ts';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.ts';
import { AuthError, TransientError, UpstreamError } from '../../src/upstream/errors.ts';
import { createSenderThread } from '../../src/upstream/sender-thread.ts';
import type { UpstreamTransport } from '../../src/upstream/transport.ts';
import { ALLOCATE, GC_TRACE_FLAGS, scavengesWhileAllocating } from '../support/gc-trace.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { hang, json, reset, startFaultServer, text, type FaultServer } from './fault-server.ts';

/**
 * The sender thread (what `chaintap worker` and the other commands send through): the budget it
 * keeps is the one shared through Redis, pauses and aborts reach it, close() ends it, and the key
 * stays in it. Against the project's simulator and a scripted fault server over real HTTP.
 */
const API_KEY = 'thread-key-3e9b1d7c';
const silent = createLogger({ level: 'silent', pretty: false });

describe('sender thread', () => {
  let simulator: RunningSimulator;
  let server: FaultServer;
  let testRedis: TestRedis;
  let redis: Redis;
  let budgets = 0;
  const opened: UpstreamTransport[] = [];

  /** A sender thread on budget `budget` (the same key: the same budget, as two processes share it). */
  const thread = (baseUrl: string, rps: number, budget: string, timeoutMs = 2_000, maxBodyBytes = 8 * 1024 * 1024) => {
    const transport = createSenderThread({
      baseUrl,
      apiKey: API_KEY,
      timeoutMs,
      maxBodyBytes,
      limiter: { kind: 'shared', redis: testRedis.url, key: `${testRedis.prefix}:upstream:pace:${budget}`, rps },
      logger: silent,
    });
    opened.push(transport);
    return transport;
  };
  const client = (transport: UpstreamTransport, settings: Record<string, string | number> = {}): UpstreamClient =>
    createUpstreamClient({
      options: loadOptions({ UPSTREAM_BASE_URL: 'http://unused.invalid', UPSTREAM_MAX_RETRIES: 1, ...settings }, {}),
      logger: silent,
      metrics: createMetrics({ defaultMetrics: false }),
      transport,
    });

  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: API_KEY, faultSeed: 11 });
    server = await startFaultServer();
    testRedis = createTestRedis();
    redis = new Redis(testRedis.url);
  });
  beforeEach(() => {
    simulator.setFaults({ rateLimitRps: 0 });
    simulator.resetStats();
    server.requests.length = 0;
    server.script();
    server.fallback(json(200, { data: [] }));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((transport) => transport.close()));
  });
  afterAll(async () => {
    await simulator.close();
    await server.close();
    redis.disconnect();
    await testRedis.cleanup();
  });

  it('two processes on one budget: paced together, never a burst at a sliding-window upstream', async () => {
    const rps = 20;
    // Just above the limit, as in the worker-processes test: a burst would show, the few
    // milliseconds of arrival jitter of a loaded machine (this process also runs the simulator) do not.
    simulator.setFaults({ rateLimitRps: rps + 2 });
    const budget = `${++budgets}`;
    const pair = [client(thread(simulator.url, rps, budget)), client(thread(simulator.url, rps, budget))];
    // Both threads up (modules loaded, Redis connected) before counting.
    await Promise.all(pair.map((each) => each.fetchProtocols()));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    simulator.resetStats();
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => pair[i % 2]!.fetchProtocols()));
    expect(responses.map((response) => [response.status, response.attempts])).toEqual(Array(60).fill([200, 1]));
    const stats = simulator.stats();
    expect(stats.byStatus).toEqual({ 200: 60 });
    expect(stats.maxInTrailingSecond).toBeLessThanOrEqual(rps + 1);
    // 60 starts paced at 20 per 1.025 s: never faster, however the machine is loaded (two budgets
    // of 20 would take half as long, and put 40 into a second).
    expect(performance.now() - started).toBeGreaterThanOrEqual(2_900);
  });

  it('a current price request asked last is sent before the positions and NFT requests already waiting', async () => {
    const paced = client(thread(simulator.url, 10, `${++budgets}`));
    // The thread up (modules loaded, Redis connected) before the order counts.
    await paced.fetchProtocols();
    const sent: string[] = [];
    const labelled = (label: string, request: Promise<unknown>) => request.then(() => void sent.push(label));
    const address = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
    // Asked first: six NFT requests, then six positions requests, all waiting for starts 102.5 ms apart.
    const waiting = [
      ...Array.from({ length: 6 }, (_, i) => labelled('nfts', paced.fetchNftHoldings(address(i + 1)))),
      ...Array.from({ length: 6 }, (_, i) => labelled('positions', paced.fetchPositions(address(i + 1)))),
    ];
    await new Promise((resolve) => setTimeout(resolve, 250));
    const sentBefore = sent.length;
    const prices = [
      labelled('past prices', paced.fetchTokenPriceBatch(['0x2::sui::SUI'], { at: new Date(Date.now() - 3_600_000) })),
      labelled('prices', paced.fetchTokenPriceBatch(['0x2::sui::SUI'])),
    ];
    await Promise.all([...waiting, ...prices]);
    // The current price goes with the next start (one request may have been on its way when it was asked).
    expect(sent.indexOf('prices')).toBeLessThanOrEqual(sentBefore + 1);
    expect(sent.indexOf('prices')).toBeLessThan(sent.lastIndexOf('positions'));
    // Positions before NFTs though asked after them; a price at a past time after all of them.
    expect(sent.filter((label) => label !== 'prices')).toEqual([
      ...Array(6).fill('positions'),
      ...Array(6).fill('nfts'),
      'past prices',
    ]);
    expect(simulator.stats().byStatus).toEqual({ 200: 15 });
  });

  it('reports the rate-limit wait and the duration back to the main thread', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const transport = thread(simulator.url, 10, `${++budgets}`);
    const paced = createUpstreamClient({ options: loadOptions({}, {}), logger: silent, metrics, transport });
    await Promise.all([paced.fetchProtocols(), paced.fetchProtocols(), paced.fetchProtocols()]);
    // The third start waited two intervals of 102.5 ms.
    expect((await metrics.rateLimitWaitSeconds.get()).values[0]!.value).toBeGreaterThan(0.2);
    const latency = (await metrics.upstreamLatency.get()).values.find((value) => value.metricName?.endsWith('_count'));
    expect(latency?.value).toBe(3);
    const requests = (await metrics.upstreamRequests.get()).values;
    expect(requests).toEqual([
      expect.objectContaining({ labels: { operation: 'protocols', status: '200' }, value: 3 }),
    ]);
  });

  it("a 429 in one process pauses the other's requests for Retry-After", async () => {
    const budget = `${++budgets}`;
    const first = client(thread(server.url, 100, budget));
    const second = client(thread(server.url, 100, budget));
    server.script(text(429, 'slow down', { 'retry-after': '1' }));
    const retried = first.fetchProtocols();
    // The first process has told the budget (Redis) to pause.
    while (!Number(await redis.hget(`${testRedis.prefix}:upstream:pace:${budget}`, 'paused'))) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await second.fetchProtocols();
    expect((await retried).attempts).toBe(2);
    const [limited, ...later] = server.requests;
    expect(later).toHaveLength(2);
    for (const request of later) expect(request.arrivedAt - limited!.arrivedAt).toBeGreaterThanOrEqual(1_000);
  });

  it('abort: a request waiting for its start is given up and never sent', async () => {
    const transport = thread(server.url, 100, `${++budgets}`);
    await transport.pause(60_000);
    const controller = new AbortController();
    const waiting = transport.send({ method: 'GET', path: '/v2/defi/protocols' }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    // A signal already aborted: not even posted to the thread.
    await expect(transport.send({ method: 'GET', path: '/x' }, AbortSignal.abort(new Error('gone')))).rejects.toThrow(
      'gone',
    );
    await transport.close();
    expect(server.requests).toHaveLength(0);
  });

  it('abort: a request in flight is given up at once, and the thread serves the next one', async () => {
    server.fallback(hang);
    const transport = thread(server.url, 100, `${++budgets}`, 60_000);
    const controller = new AbortController();
    const inFlight = transport.send({ method: 'GET', path: '/v2/defi/protocols' }, controller.signal);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('shutting down'));
    await expect(inFlight).rejects.toThrow('shutting down');
    // The thread still serves the next request.
    server.fallback(json(200, { data: [] }));
    const next = await transport.send({ method: 'GET', path: '/v2/defi/protocols' });
    expect(next).toMatchObject({ kind: 'answer', status: 200 });
  });

  it('carries large answers within its heap limits: four of 16 MB at once', async () => {
    // Far larger than an address's answer; the thread's heap is capped (sender-thread.ts), and an
    // answer it could not hold would fail every request in flight with it.
    const body = JSON.stringify({ data: 'x'.repeat(16 * 1024 * 1024) });
    server.fallback(text(200, body, { 'content-type': 'application/json' }));
    // Above the default UPSTREAM_MAX_BODY_BYTES (8 MiB), as an operator may set it.
    const transport = thread(server.url, 100, `${++budgets}`, 30_000, 32 * 1024 * 1024);
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () => transport.send({ method: 'GET', path: '/v2/defi/protocols' })),
    );
    expect(
      outcomes.map((outcome) => (outcome.kind === 'answer' ? [outcome.status, outcome.body.length] : outcome)),
    ).toEqual(Array(4).fill([200, body.length]));
  });

  it('after close(), a request fails at once; close() twice is fine', async () => {
    const transport = thread(server.url, 100, `${++budgets}`);
    await transport.close();
    await transport.close();
    await expect(transport.send({ method: 'GET', path: '/v2/defi/protocols' })).rejects.toThrow(/closed/);
    expect(server.requests).toHaveLength(0);
  });

  it('the key is sent on every request and shows in no error, whatever the failure', async () => {
    const keyed = client(thread(server.url, 500, `${++budgets}`));
    server.script(
      text(401, `{"error":"invalid key ${API_KEY}"}`),
      reset,
      reset,
      text(503, `upstream said ${API_KEY}`),
      hang,
    );
    const auth = await keyed.fetchProtocols().catch((error: unknown) => error);
    const network = await keyed.fetchProtocols().catch((error: unknown) => error);
    const server5xx = await keyed
      .fetchProtocols({ signal: AbortSignal.timeout(30_000) })
      .catch((error: unknown) => error);
    expect(auth).toBeInstanceOf(AuthError);
    expect((auth as AuthError).body).toBe('{"error":"invalid key [redacted]"}');
    expect(network).toMatchObject({ reason: 'network', attempts: 2 });
    expect(server5xx).toBeInstanceOf(TransientError);
    for (const error of [auth, network, server5xx]) {
      expect(error).toBeInstanceOf(UpstreamError);
      const upstreamError = error as UpstreamError;
      for (const visible of [
        upstreamError.message,
        upstreamError.stack ?? '',
        upstreamError.body ?? '',
        JSON.stringify(upstreamError),
      ]) {
        expect(visible).not.toContain(API_KEY);
      }
    }
    for (const request of server.requests) expect(request.headers['x-api-key']).toBe(API_KEY);
  });
});

describe('sender thread and the process', () => {
  let testRedis: TestRedis;
  let simulator: RunningSimulator;
  beforeAll(async () => {
    testRedis = createTestRedis();
    simulator = await startSimulator({ apiKey: API_KEY, faultSeed: 12 });
  });
  afterAll(async () => {
    await simulator.close();
    await testRedis.cleanup();
  });

  /**
   * A node process that builds a sender thread as a library user would, sends one request through
   * it, then `ending`s; resolves to its exit code and output (with the thread id the sender thread
   * reported, and each thread's nice value before and after).
   */
  function runProcess(ending: 'close' | 'leave'): Promise<{ code: number | null; output: string }> {
    const senderThread = new URL('../../src/upstream/sender-thread.ts', import.meta.url).href;
    const script = `
      import { getPriority } from 'node:os';
      import { readdirSync } from 'node:fs';
      const { createSenderThread } = await import(${JSON.stringify(senderThread)});
      const logger = { warn: (...args) => console.log('warn', ...args), error: (...args) => console.log('error', ...args) };
      const threads = () => readdirSync('/proc/self/task').map((tid) => tid + ':' + getPriority(Number(tid))).join(',');
      console.log('threads before', threads());
      const transport = createSenderThread({
        baseUrl: ${JSON.stringify(simulator.url)}, apiKey: ${JSON.stringify(API_KEY)}, timeoutMs: 5000, maxBodyBytes: 8388608, logger,
        limiter: { kind: 'shared', redis: ${JSON.stringify(testRedis.url)}, key: ${JSON.stringify(`${testRedis.prefix}:pace:${ending}`)}, rps: 50 },
        onStarted: (threadId) => console.log('started', threadId),
      });
      const outcome = await transport.send({ method: 'GET', path: '/v2/defi/protocols' });
      console.log('status', outcome.status);
      console.log('threads after', threads());
      ${ending === 'close' ? 'await transport.close(); console.log("closed");' : ''}
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
  }

  it('close() ends the thread and its connections: the process exits by itself', async () => {
    const { code, output } = await runProcess('close');
    expect(output).toContain('status 200');
    expect(output).toContain('closed');
    expect(output).not.toContain('warn');
    expect(code).toBe(0);
  });

  it.runIf(process.platform === 'linux')(
    "reports its kernel thread id once started, and changes no thread's priority by itself",
    async () => {
      const { output } = await runProcess('close');
      const threads = (label: string) =>
        new Map(
          (new RegExp(`threads ${label} ([\\d:,-]+)`).exec(output)?.[1] ?? '')
            .split(',')
            .map((entry) => entry.split(':').map(Number) as [number, number]),
        );
      const before = threads('before');
      const after = threads('after');
      const senderThreadId = Number(/started (\d+)/.exec(output)?.[1]);
      // The sender thread is one of the process's threads, not one that was there before it.
      expect(after.has(senderThreadId)).toBe(true);
      expect(before.has(senderThreadId)).toBe(false);
      // The main thread, V8's and libuv's helpers, tsx's loader and the sender thread: all where they started.
      expect(after.size).toBeGreaterThan(4);
      const nice = before.values().next().value;
      expect([...after.values()]).toEqual(Array(after.size).fill(nice));
    },
  );

  it("leaves V8's flags alone: a process with a sender thread still collects its young generation with helpers", async () => {
    // The CLI's process tuning turns the helpers off (test/cli/process-tuning.test.ts); a library must not.
    const senderThread = new URL('../../src/upstream/sender-thread.ts', import.meta.url).href;
    const script = `
      const { createSenderThread } = await import(${JSON.stringify(senderThread)});
      const transport = createSenderThread({
        baseUrl: 'http://127.0.0.1:9', apiKey: 'k', timeoutMs: 1000, maxBodyBytes: 8388608, limiter: { kind: 'local', rps: 1 },
        logger: { warn: () => {}, error: () => {} },
      });
      ${ALLOCATE}
      await transport.close();
    `;
    const child = spawn(process.execPath, [...GC_TRACE_FLAGS, '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    await new Promise((resolve) => child.once('close', resolve));
    const scavenges = scavengesWhileAllocating(output);
    expect(scavenges.total).toBeGreaterThan(5);
    expect(scavenges.withHelpers).toBeGreaterThan(0);
  });

  it('an idle thread never holds the process open, even without close()', async () => {
    const { code, output } = await runProcess('leave');
    expect(output).toContain('status 200');
    expect(code).toBe(0);
  });
});
