import { describe, expect, it } from 'vitest';
import { requestWindow } from '../../src/simulator/request-window.ts';

/** How a strict upstream counts (the simulator's rate limit): each window convention at its edge. */
describe('the window of a rate limit', () => {
  it('sliding: a request exactly one window back no longer counts', () => {
    const window = requestWindow(1000, 'sliding');
    window.add(10_000);
    window.add(10_500);
    expect(window.count(10_999)).toBe(2);
    expect(window.count(11_000)).toBe(1);
    expect(window.msUntilSlotFrees(11_000)).toBe(500);
  });

  it('closed: a request exactly one window back still counts', () => {
    const window = requestWindow(1000, 'closed');
    window.add(10_000);
    window.add(10_500);
    expect(window.count(11_000)).toBe(2);
    expect(window.count(11_000.001)).toBe(1);
  });

  it('fixed: counts the calendar window the time falls in, and frees at its end', () => {
    const window = requestWindow(60_000, 'fixed');
    window.add(120_000);
    window.add(179_999);
    expect(window.count(179_999)).toBe(2);
    expect(window.msUntilSlotFrees(150_000)).toBe(30_000);
    // A new minute: nothing of the last one counts, however recent.
    expect(window.count(180_000)).toBe(0);
    expect(window.msUntilSlotFrees(180_000)).toBe(0);
  });
});
