import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirmBackfill } from '../../src/cli/backfill-prices.ts';
import { parseUpstreamRate } from '../../src/config/upstream-rate.ts';
import { InvalidInputError } from '../../src/errors.ts';
import { estimateBackfill } from '../../src/scheduler/backfill-plan.ts';

// The question a backfill above 10,000 requests asks at a terminal, answered through a stream that
// says it is one.
const LARGE = estimateBackfill(10_081, 1, 10_081);
const SMALL = estimateBackfill(4, 2, 4);

function terminal(isTTY: boolean) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { input, output, written: () => written };
}

const settings = (io: ReturnType<typeof terminal>, more: { yes?: boolean; signal?: AbortSignal } = {}) => ({
  rate: parseUpstreamRate('40/min'),
  yes: more.yes ?? false,
  input: io.input,
  output: io.output,
  signal: more.signal,
});

/** Resolves once the question has been written. */
async function asked(io: ReturnType<typeof terminal>): Promise<void> {
  while (!io.written().includes('[y/N]')) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('confirming a backfill', () => {
  it('shows the plan and goes on at once up to 10,000 requests, asking nothing', async () => {
    const io = terminal(true);
    await confirmBackfill(SMALL, settings(io));
    expect(io.written()).toBe(
      'backfill plan: 4 step(s) x 1 batch(es) of up to 50 tokens (2 token(s)) = 4 request(s); 0 already stored, 4 to send\n' +
        'at 40/min (UPSTREAM_RATE) that takes at least 6 s, longer while scheduled requests share the quota\n',
    );
  });

  it('above 10,000 at a terminal: asks, and starts on yes', async () => {
    for (const answer of ['y', 'yes', ' YES ']) {
      const io = terminal(true);
      const confirmed = confirmBackfill(LARGE, settings(io));
      await asked(io);
      expect(io.written()).toContain('at least 4 h 12 min');
      expect(io.written()).toMatch(/start 10,081 requests\? \[y\/N\] $/);
      io.input.write(`${answer}\n`);
      await expect(confirmed).resolves.toBeUndefined();
    }
  });

  it('above 10,000 at a terminal: anything else, the end of input or Ctrl-C is a no', async () => {
    const no = new InvalidInputError('nothing started: not confirmed');
    for (const answer of ['n\n', '\n', 'sure\n']) {
      const io = terminal(true);
      const confirmed = confirmBackfill(LARGE, settings(io));
      await asked(io);
      io.input.write(answer);
      await expect(confirmed).rejects.toThrow(no);
    }
    const ended = terminal(true);
    const confirmed = confirmBackfill(LARGE, settings(ended));
    await asked(ended);
    ended.input.end();
    await expect(confirmed).rejects.toThrow(no);

    const stop = new AbortController();
    const interrupted = terminal(true);
    const pending = confirmBackfill(LARGE, settings(interrupted, { signal: stop.signal }));
    await asked(interrupted);
    stop.abort();
    await expect(pending).rejects.toThrow(no);
  });

  it('above 10,000 without a terminal: refuses with what to do, unless --yes', async () => {
    const io = terminal(false);
    await expect(confirmBackfill(LARGE, settings(io))).rejects.toThrow(
      new InvalidInputError(
        'nothing started: 10,081 requests is more than 10,000 and stdin is not a terminal to confirm it: pass --yes to start it, or use a larger --interval, a shorter range or fewer --tokens',
      ),
    );
    expect(io.written()).toContain('= 10,081 request(s)');
    const yes = terminal(false);
    await expect(confirmBackfill(LARGE, settings(yes, { yes: true }))).resolves.toBeUndefined();
    expect(yes.written()).not.toContain('[y/N]');
  });
});
